// The part of code generation every kernel kind shares: the value of any
// fused instruction at a logical index, as GLSL statements. Values the plan
// keeps in buffers are loaded through their own layouts; everything else
// (elementwise ops, data movement and indexing as index maps, a sort's
// results through its permutation, called computations) is computed
// inline, once per index (memoized). Kernel builders (codegen/*_builder.cc,
// one per kernel kind) derive from it: they decide what each invocation
// owns and loops over, and ask this class for values, bindings, stores and
// the kernel's prologue. Internal to codegen/.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "codegen/kernel.h"
#include "codegen/shader_library.h"
#include "ir/module.h"
#include "ir/tiled_index.h"
#include "ops/rng_bit_generator.h"
#include "plan/program.h"
#include "plan/vector_source.h"

namespace vkxla {

std::string U(int64_t v);  // "7u"
int64_t PowerOfTwoAtLeast(int64_t x);
// Name suffix of the real-math instance a type computes with ("float").
std::string MathSuffix(ElementType t);

class ElementEmitter {
 public:
  ElementEmitter(const Program& program, const FusionGroup& group);
  virtual ~ElementEmitter() = default;

  // A GLSL function `name(uint i0, ...)` returning the value of `n` at
  // that index: a fused operand's prologue (load_a(m, k)) or a result's
  // epilogue, for kernels whose loops are written by hand (matmul).
  StatusOr<std::string> EmitFunction(const std::string& name, const Instruction* n);

 protected:
  // Adds the GLSL function `ret name(params)` whose body is whatever
  // `value` emits (values at indices built from the parameters) and whose
  // result is what it returns; memoized values stay inside the function.
  Status Function(const std::string& name, const std::string& params, const std::string& ret,
                  const std::function<StatusOr<std::string>()>& value);
  StatusOr<std::string> Convert(const std::string& x, ElementType from, ElementType to);
  enum class Access { kRead, kWrite, kReadWrite };

  // ---- values ----
  StatusOr<std::string> Value(const Instruction* n, const std::vector<std::string>& idx);
  StatusOr<std::vector<std::string>> TupleValue(const Instruction* n, const std::vector<std::string>& idx);
  // The value `v` names at idx (an element of a tuple-shaped op, or all of it).
  StatusOr<std::string> ValueOf(const ValueRef& v, const std::vector<std::string>& idx);
  // Emits a scalar computation applied to `args`; a tuple root gives several values.
  StatusOr<std::vector<std::string>> Apply(const Computation& c, const std::vector<std::string>& args);
  // Assigns a computation's results to accumulators of `n`'s element types
  // (through temporaries, since a computation may swap its parameters).
  Status Assign(const Instruction* n, const std::vector<std::string>& vars, const std::vector<std::string>& values);
  // Forget values emitted inside a loop once it closes (they are out of scope).
  struct Memo {
    std::map<std::string, std::string> values;
    std::map<std::string, std::vector<std::string>> tuples;
  };
  Memo SaveMemo() const { return {memo_, tuple_memo_}; }
  void RestoreMemo(const Memo& m) {
    memo_ = m.values;
    tuple_memo_ = m.tuples;
  }
  void ClearMemo() {
    memo_.clear();
    tuple_memo_.clear();
  }
  // `n`'s value is `expr` wherever it is read (a hero's result in its epilogue).
  void Bind(const Instruction* n, const std::string& expr) { bound_[n] = expr; }

  // `uint name(params)`: the physical index in `source.value`'s buffer of
  // x's element at `idx` (built from the parameters), or 0xFFFFFFFFu where
  // the source's pad covers it: the address of a vector's first element
  // (plan/vector_source.h), computed through the index maps between.
  Status AddressFunction(const std::string& name, const std::string& params, const Instruction* x,
                         const std::vector<std::string>& idx, const VectorSource& source);
  // Statements reading `count` consecutive uvec4s of `buffer` from the
  // element address `address` (an AddressFunction call): `<name>_0`, ...,
  // and, where `padded`, `<name>_ok` (false where padding covers them; the
  // vectors then hold vector 0 of the buffer, in bounds). `lanes`:
  // elements per vector.
  std::string ReadAddressedVectors(const std::string& buffer, const std::string& address, const std::string& name, bool padded,
                                   int64_t lanes, int64_t count);
  // Statements reading into hoisted<id>_0 (and hoisted<id>_ok where padding
  // may cover it) the vector of `lanes` of n's elements from the logical
  // index `first`, which `source` proves lie in one aligned vector of its
  // buffer (or wholly in padding): one address function per instruction.
  StatusOr<std::string> ReadHoistedVector(const Instruction* n, const VectorSource& source, const std::string& id,
                                          const std::vector<std::string>& first, int64_t lanes);
  // n's element at slot (ew, es) of hoisted<id>_0 (elements of `bits`), or
  // the padding value where padding covers the vector.
  StatusOr<std::string> HoistedLane(const Instruction* n, const VectorSource& source, const std::string& id, int bits);
  // A concatenate reads each operand at a clamped index and picks by
  // position (index_map_emitter.cc): the index along the joined dim into
  // the operand that starts at `start` and holds `size` elements there, for
  // the output's index `at`; and the pick among `parts` (each operand's end
  // offset and value, in order) at `at`.
  static std::string ConcatenatePartIndex(const std::string& at, int64_t start, int64_t size);
  static std::string PickConcatenatePart(const std::string& at, const std::vector<std::pair<int64_t, std::string>>& parts);

  // ---- buffers ----
  // The GLSL name of `buffer` in this kernel ("in0", "out1", ...), bound on
  // first use; binding order is the order of first use.
  std::string BindBuffer(int buffer, Access access, const std::string& prefix);
  // The name `buffer` is read through, by whole vectors (ReadVector) or by
  // words (the TW macro for a texel buffer, else W): a uniform texel buffer
  // "<prefix>t" where the target reads inputs so
  // (TargetFeatures::max_texel_buffer_elements), the buffer fits one view
  // (arrays past the storage binding range included: a view reaches
  // further) and it is no output of this kernel; else its storage binding.
  std::string BindReads(int buffer, const std::string& prefix);
  bool IsTexel(const std::string& name) const;  // a binding name from BindReads
  // Group output k as "out<k>" (read-write where a kernel also reads it or
  // stores with atomics).
  std::string BindOutput(size_t output, Access access = Access::kWrite);
  // Reads element `idx` of a value held in `buffer` as `shape` under `layout`.
  StatusOr<std::string> LoadBuffer(int buffer, const Shape& shape, const Layout& layout, const std::vector<std::string>& idx);
  // A whole uvec4 of a bound buffer, read or written. On a CPU driver with
  // 64-bit integers this goes through a u64vec2 alias of the buffer:
  // llvmpipe moves each component of each invocation separately, so two
  // 64-bit words cost about half of four 32-bit ones (column sums: 1.07 of
  // the stream kernel against 0.8).
  std::string ReadVector(const std::string& buffer, const std::string& index);
  std::string WriteVector(const std::string& buffer, const std::string& index, const std::string& value);
  void UseQuadWords(const std::string& buffer) { quad_buffers_.insert(buffer); }
  // `buffer` as an array of 32-bit `type` ("uint", "int" or "float"): the
  // element an atomic function takes ("out0_int.v[p]").
  std::string ScalarAlias(const std::string& buffer, const std::string& type);
  // Declares GL_EXT_shader_atomic_float (atomicAdd on floats).
  void UseAtomicFloat() { atomic_float_ = true; }
  // Declares GL_EXT_shader_atomic_int64 (atomics on uint64_t).
  void UseAtomicInt64() { atomic_int64_ = true; }
  // Declares GL_KHR_shader_subgroup_ballot (subgroupBroadcast).
  void UseSubgroupBroadcast() { subgroup_broadcast_ = true; }
  // VK_NV_cooperative_matrix on f16 (its memory model, f16 arithmetic and
  // subgroup ids come with it).
  void UseCooperativeMatrix() { cooperative_matrix_ = true; }
  void UseWideWords(const std::string& buffer) { wide_buffers_.insert(buffer); }
  // Statements storing compute value `v` of type t as element `p` (a
  // physical index) of `buffer` laid out with `bits` per element, when
  // invocations do not own whole vectors: atomics where elements share words.
  StatusOr<std::string> StoreScattered(const std::string& buffer, int bits, ElementType t, const std::string& p,
                                       const std::string& v);
  // Kernels whose invocations each own one result element (scan, windows,
  // scatter): group output k's element at logical `idx`, read back (a pass
  // continuing from the previous one) or stored (atomics where elements
  // share words).
  StatusOr<std::string> LoadOutputElement(size_t k, const std::vector<std::string>& idx);
  StatusOr<std::string> StoreOutputElement(size_t k, const std::vector<std::string>& idx, const std::string& v);
  // The logical index of output 0's physical element `inv`, with the
  // statements that compute it and return for invocations past the end or
  // on padding.
  StatusOr<std::vector<std::string>> OwnOutputElement(std::string& main);
  // Statements that put element `v` at slot (ew, es) of `outv`.
  std::string StoreElement(ElementType t, const std::string& v);
  // Declares ew and es, the word and slot of element e of the output vector.
  std::string VectorSlot() const;
  StatusOr<std::string> PhysicalIndex(const Shape& shape, const Layout& layout, const std::vector<std::string>& idx);
  Layout LayoutOf(const Instruction* n) const;
  // The layout of the buffer holding `n`, if the plan keeps it in one.
  std::optional<Layout> Materialized(const Instruction* n) const { return materialized_(n); }

  // ---- the kernel ----
  // Notes that the kernel computes with t (int64, the math libraries), or
  // an error naming the op, the type and the feature the device lacks.
  Status Use(ElementType t, const Instruction& n);
  Status UseType(ElementType t, const std::string& context);
  std::string Temp(const std::string& type, const std::string& expr);
  std::string Helper(const std::string& name, const std::string& definition);
  // x, flushed to a zero of its sign when it is an f32-computed subnormal
  // on a device that flushes them (TargetFeatures::f32_subnormals_kept).
  std::string FlushedForMath(ElementType t, const std::string& x);
  std::string Bits64(ElementType t, const std::string& x);
  StatusOr<std::string> Bitcast128(const Instruction* n, const std::vector<std::string>& idx, const std::string& type);
  std::string FromBits64(ElementType t, const std::string& b);
  // "#version", extensions, bindings, libraries, helpers and shared
  // memory, then `void main() {` with `inv`, the linear invocation id.
  // uses_double: whether the kernel has double code (software floats
  // without shaderFloat64).
  std::string Prologue(uint32_t local_size, const std::string& name, bool uses_double) const;
  KernelSource Finish(const std::string& name, uint32_t local_size, const std::string& main_body) const;
  // An integer element of `n` as a GLSL int, saturated to int's range.
  StatusOr<std::string> IndexAsInt(const Instruction* n, const std::vector<std::string>& idx);
  // That element clamped to [0, max(limit, 0)], as a uint (XLA's start
  // indices; run-time sizes).
  StatusOr<std::string> ClampedIndex(const Instruction* n, const std::vector<std::string>& idx, int64_t limit);
  // Whether some value read the parameters' run-time sizes.
  bool reads_parameter_sizes() const { return reads_parameter_sizes_; }
  // The run-time size of dim d of `n` (a constant unless the dim is dynamic).
  StatusOr<std::string> DynamicSize(const Instruction* n, int64_t d);
  // The same for a value (a leaf of a tuple too).
  StatusOr<std::string> DynamicSize(const ValueRef& v, int64_t d);
  // The run-time size of dim d of the array `buffer` holds (at most
  // `bound`): from its sizes buffer, or an entry parameter's slot.
  StatusOr<std::string> BufferDynamicSize(int buffer, int64_t d, int64_t bound);

  // A buffer read in the kernel's "vector context": one holding `shape`
  // under `layout` with `bits`-bit elements, read at `index`, is word ew of
  // the invocation's vector, loaded once before the element loop (see
  // vector_loads_).
  struct VectorContext {
    Shape shape;
    Layout layout;
    int bits = 0;
    std::vector<std::string> index;
    // Loop kernels: the invocation owns physical elements inv * per_vector
    // + e, e the loop variable `element`; 0 where a kernel owns otherwise.
    int per_vector = 0;
    std::string element;
    // Which vector of the output that is: the invocation id, unless an
    // invocation owns several (a strip, a pair).
    std::string vector = "inv";
  };
  // Lets a builder read whole vectors or blocks for some loads of program
  // buffer `buffer` (binding it where it does): an expression, or nullopt
  // for an element load.
  virtual StatusOr<std::optional<std::string>> LoadWhole(int buffer, const Shape& placed, int bits,
                                                         const std::vector<std::string>& idx) {
    return std::optional<std::string>();
  }
  // Lets a builder read `n` (not in a buffer, read at the vector
  // context's own index) from whole vectors loaded once per invocation
  // through its index maps: an expression, or nullopt to compute it.
  virtual StatusOr<std::optional<std::string>> LoadThroughIndexMaps(const Instruction* n) {
    return std::optional<std::string>();
  }

  const Program& program_;
  const FusionGroup& group_;
  const TargetFeatures& target_;
  MaterializedLayoutFn materialized_;
  // The output a kernel stores (its shape with layout, element storage bits).
  Shape out_;
  Layout out_layout_;
  int out_bits_ = 0;
  const Instruction* root_ = nullptr;  // the instruction whose layout is the output's (a bitcast root)
  std::optional<VectorContext> vector_context_;
  // While an AddressFunction is emitted: the index maps whose values are
  // addresses, and the value whose buffer they address.
  std::set<const Instruction*> address_chain_;
  const Instruction* address_value_ = nullptr;
  int function_depth_ = 0;  // Functions being emitted (their values are local to them)
  std::set<std::string> vector_loads_;  // buffers read as the invocation's whole uvec4
  std::map<const Instruction*, std::string> vector_address_functions_;  // ReadHoistedVector's, per instruction
  std::string body_;
  // Statements a loop kernel runs once per invocation before its element
  // loop (values all of its elements share, such as their random blocks).
  std::string invocation_prelude_;
  std::string shared_;  // shared-memory declarations of a workgroup kernel
  std::string push_constants_;  // the push-constant block, if the kernel reads one
  int next_temp_ = 0;

 private:
  StatusOr<std::string> Compute(const Instruction* n, const std::vector<std::string>& idx);
  StatusOr<std::string> Unary(const Instruction& n, const std::string& x);
  StatusOr<std::string> Binary(const Instruction& n, const std::string& a, const std::string& b);
  StatusOr<std::string> Bitcast(const Instruction* n, const std::vector<std::string>& idx);
  StatusOr<std::string> Reinterpret(const Instruction* n, const std::vector<std::string>& idx);
  StatusOr<std::string> MoveElements(const Instruction* n, const std::vector<std::string>& idx);
  // dynamic-slice, dynamic-update-slice and gather (index_map_emitter.cc).
  StatusOr<std::string> IndexElements(const Instruction* n, const std::vector<std::string>& idx);
  // An rng-bit-generator's state as uvec2 words: the key and the 128-bit
  // counter's low and high halves.
  struct RngState {
    std::string key, low, high;
  };
  StatusOr<RngState> RngStateWords(const Instruction* n, const RngBitsPlan& p);
  // An rng-bit-generator's bits at `idx` (rng_bits_emitter.cc).
  StatusOr<std::string> RngBits(const Instruction* n, const std::vector<std::string>& idx);
  // The invocation's own blocks of random bits, computed once before the
  // element loop, and the word element `e` of it takes; nullopt where the
  // bits are not read at the invocation's own row-major elements.
  StatusOr<std::optional<std::vector<std::string>>> HoistedRngWords(const Instruction* n, const std::vector<std::string>& idx);
  // Sort's (topk's) results at `idx`, read through its permutation.
  StatusOr<std::vector<std::string>> SortResults(const Instruction* n, const std::vector<std::string>& idx);
  std::string MemoKey(const Instruction* n, const std::vector<std::string>& idx) const;

  struct Binding {
    int buffer;
    std::string name;
    Access access;
    bool texel = false;  // a uniform texel buffer (usamplerBuffer of RGBA32UI texels)
  };
  std::vector<Binding> bindings_;
  int params_sizes_binding_ = -1;
  // Values already emitted, by instruction and index; loops save and
  // restore these, since what a loop body defines is out of scope after it.
  std::map<std::string, std::string> memo_;
  std::map<std::string, std::vector<std::string>> tuple_memo_;
  std::map<const Instruction*, std::string> bound_;
  std::map<std::pair<const Instruction*, std::string>, std::string> rng_blocks_;  // (bits, vector) -> hoisted block arrays
  std::map<std::string, std::string> helpers_;
  // Names in the order they were first defined: a function's body defines
  // what it calls first, so this order declares callees before callers
  // (by name, a matmul's load_a came before the threefry2x32 it calls).
  std::vector<std::string> helper_order_;
  LibraryNeeds needs_;
  bool int64_ = false;
  bool reads_parameter_sizes_ = false;
  std::set<std::string> wide_buffers_;  // buffers accessed through their u64vec2 alias
  std::set<std::string> quad_buffers_;  // buffers accessed through their u64vec4 alias
  std::set<std::pair<std::string, std::string>> scalar_aliases_;  // (buffer, type) from ScalarAlias
  bool atomic_float_ = false;
  bool atomic_int64_ = false;
  bool subgroup_broadcast_ = false;
  bool cooperative_matrix_ = false;
};

}  // namespace vkxla
