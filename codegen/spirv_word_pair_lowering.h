// The engine of the SPIR-V passes that replace a 64-bit type the device
// lacks by words of 32 bits: 64-bit integers (spirv_int64_lowering.h) and
// doubles (spirv_float64_lowering.h). It reads a module as glslang wrote it
// (before optimization), turns the lowered scalar type into uvec2 (low
// word first, so memory keeps its bits) and a 2-vector of it into uvec4,
// rewrites constants, merges pointer and function types that become equal,
// and hands each instruction on the lowered type to the rule of the pass,
// which mostly calls a library function of the kernel (found by its
// OpName) that the optimizer then inlines. The library stays in the module
// through a "keep" function called behind a specialization constant, which
// the pass freezes to 0.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "vkxla/status.h"

namespace vkxla::word_pairs {

struct Inst {
  std::vector<uint32_t> words;
  uint32_t opcode = 0, type = 0, result = 0;
  std::vector<uint16_t> ids;  // word offsets of the id operands other than the result and its type
};

uint32_t Word0(uint32_t opcode, size_t words);

// Whether the module declares `capability` among its leading instructions.
bool DeclaresCapability(const std::vector<uint32_t>& spirv, uint32_t capability);

struct PassNames {
  std::string what;     // for errors: "64-bit integer emulation (the device lacks shaderInt64, or VKXLA_MASK hides it)"
  std::string type;     // "64-bit integers"
  std::string prefix;   // of the library's functions: "i64w_"
  std::string library;  // for errors: "shaders/int64_words.glsl (LibraryNeeds::int64_words)"
  uint32_t keep_spec_id = 0;
  uint32_t capability = 0;  // dropped from the module
};

class WordPairLowering {
 public:
  WordPairLowering(PassNames names, std::vector<Inst> insts, uint32_t bound)
      : names_(std::move(names)), insts_(std::move(insts)), bound_(bound) {}
  virtual ~WordPairLowering() = default;

  StatusOr<std::vector<uint32_t>> Run(const std::vector<uint32_t>& header);

 protected:
  // Whether a scalar type declaration is the lowered type.
  virtual bool Lowers(const Inst& type) const = 0;
  // Whether 2-vectors of the lowered type become uvec4 (else an error).
  virtual bool LowersVectors() const = 0;
  // Appends the instructions computing `original` (which has a lowered
  // result or operand) to the body; `inst` has its ids substituted.
  virtual Status Rewrite(const Inst& original, Inst& inst) = 0;
  // Whether the library's functions stay functions for spirv-opt
  // (DontInline): the driver inlines them anyway, and spirv-opt then
  // optimizes each once instead of every inlined copy (software doubles:
  // an f64 exp kernel compiles in 3.5 s instead of 5.8 on lavapipe). Only
  // where the driver takes such calls (TargetFeatures::soft_float_calls).
  virtual bool KeepLibraryCalls() const { return false; }
  // The two words standing for a constant of the lowered type with these
  // words (low, high): the same bits, unless the pass holds values otherwise.
  virtual std::pair<uint32_t, uint32_t> ConstantWords(uint32_t low, uint32_t high) const { return {low, high}; }
  // A capability that makes the module unlowerable (64-bit atomics).
  virtual Status CheckCapability(const Inst&) const { return OkStatus(); }

  uint32_t Fresh(uint32_t type) {
    const uint32_t id = bound_++;
    if (type) type_of_[id] = type;
    return id;
  }
  bool IsLoweredType(uint32_t type) const { return lowered_.count(type) > 0; }
  bool IsLoweredVector(uint32_t type) const { return lowered_vectors_.count(type) > 0; }
  bool IsLowered(uint32_t value) const { return IsLoweredType(TypeOf(value)) || IsLoweredVector(TypeOf(value)); }
  uint32_t TypeOf(uint32_t value) const {
    auto it = type_of_.find(value);
    return it == type_of_.end() ? 0 : it->second;
  }
  uint32_t Mapped(uint32_t id) const {
    auto it = substitute_.find(id);
    return it == substitute_.end() ? id : it->second;
  }
  // The components of an (original) vector type, 1 for a scalar.
  uint32_t ComponentCount(uint32_t type) const {
    auto it = vectors_.find(type);
    return it == vectors_.end() ? 1 : it->second.second;
  }
  uint32_t ComponentType(uint32_t type) const {
    auto it = vectors_.find(type);
    return it == vectors_.end() ? type : it->second.first;
  }
  uint32_t Bits(uint32_t type) const {
    auto it = bits_.find(type);
    return it == bits_.end() ? 0 : it->second;
  }
  Status Unsupported(const Inst& inst, const std::string& what) const;
  // Loads, stores, phis, calls, composites, shuffles and bitcasts, which
  // words hold as they are (a lowered vector's component is two words):
  // whether `inst` was one of them (and is emitted).
  StatusOr<bool> RewriteStructural(const Inst& original, Inst& inst);
  // Component k of a lowered vector (two words), of another vector, or a
  // scalar as it is.
  uint32_t Component(uint32_t value, uint32_t k);
  // A call of the library function `name`; the result gets id `result`
  // (fresh when 0) of type `want`, converted from the function's type
  // where the bits allow.
  StatusOr<uint32_t> Call(const std::string& name, const Inst& inst, const std::vector<uint32_t>& args, uint32_t want,
                          uint32_t result = 0);
  Status CallInto(const std::string& name, const Inst& inst, const std::vector<uint32_t>& args) {
    return Call(name, inst, args, Mapped(inst.type), inst.result).status();
  }
  // `value` as type `to`: a bitcast between equal widths, or the low word.
  StatusOr<uint32_t> Adapt(uint32_t value, uint32_t to);
  void Emit(std::vector<uint32_t> words) { body_.insert(body_.end(), words.begin(), words.end()); }

  PassNames names_;
  uint32_t uint_ = 0, int_ = 0, uvec2_ = 0, uvec4_ = 0, bool_ = 0, float_ = 0, double_ = 0, glsl_ = 0;

 private:
  struct Helper {
    uint32_t function = 0, result_type = 0;
    std::vector<uint32_t> parameter_pointers;  // Function-storage pointer types
  };
  Status Survey();
  void RewriteTypes();
  void Substitute(Inst& inst) const;
  Status RewriteConstant(const Inst& original, const Inst& inst, std::vector<uint32_t>& out);

  std::vector<Inst> insts_;
  uint32_t bound_;
  std::set<uint32_t> lowered_, lowered_vectors_;
  std::map<uint32_t, std::pair<uint32_t, uint32_t>> vectors_;  // vector type -> (component type, count)
  std::map<uint32_t, uint32_t> bits_;                          // numeric type -> its width in bits
  std::map<uint32_t, std::vector<uint32_t>> members_;          // composite type -> its member (or element) types
  std::map<uint32_t, uint32_t> pointee_;                       // pointer type -> pointee
  std::map<uint32_t, uint32_t> storage_class_;                 // pointer type -> its storage class
  std::map<uint32_t, uint32_t> word_constants_;                // 32-bit integer constant -> its value
  // Access chains to one component of a lowered vector: its two words
  // are reached by loading and storing the whole vector.
  struct ComponentPointer {
    uint32_t vector = 0, component = 0;
  };
  std::map<uint32_t, ComponentPointer> component_pointers_;
  Status RewriteAccessChain(const Inst& original, Inst& inst);
  Status RewriteComponentAccess(const Inst& original, Inst& inst);
  std::map<uint32_t, uint32_t> type_of_;                       // value -> type (original ids)
  std::map<uint32_t, uint32_t> substitute_;                    // removed id -> the id standing for it
  std::map<uint32_t, std::pair<uint32_t, uint32_t>> constant_words_;  // lowered constant -> its two words' constants
  std::set<uint32_t> removed_, library_functions_;
  uint32_t keep_function_ = 0;
  std::map<std::string, Helper> helpers_;
  std::optional<uint32_t> keep_constant_;
  std::vector<uint32_t> body_, temporaries_;  // of the function being rewritten
};

// Parses a module for a pass (errors name the pass).
StatusOr<std::vector<Inst>> Parse(const std::vector<uint32_t>& spirv, const std::string& what);

}  // namespace vkxla::word_pairs
