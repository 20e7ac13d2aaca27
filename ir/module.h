// Computations and the module that owns them.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ir/instruction.h"

namespace vkxla {

class Computation {
 public:
  explicit Computation(std::string name) : name_(std::move(name)) {}

  const std::string& name() const { return name_; }
  // Instructions in definition order (operands before users).
  const std::vector<std::unique_ptr<Instruction>>& instructions() const { return instructions_; }
  Instruction* AddInstruction(std::unique_ptr<Instruction> inst);
  Instruction* root() const { return root_; }
  void set_root(Instruction* r) { root_ = r; }
  // Parameters ordered by parameter_number.
  std::vector<Instruction*> parameters() const;
  Instruction* Find(const std::string& name) const;
  // A deep copy under another name; called computations are shared, not copied.
  std::unique_ptr<Computation> Clone(std::string name) const;

  // Edits for passes that rewrite a region of a computation in place.
  // Every operand (and the root) that is `old` becomes `with`.
  void ReplaceUses(const Instruction* old, Instruction* with);
  // Takes `taken` out of the computation, in definition order; nothing
  // left in it may use them (the caller checks).
  std::vector<std::unique_ptr<Instruction>> Extract(const std::set<const Instruction*>& taken);
  // Back into definition order after instructions were added after their
  // users: the others keep their order, each added one goes just before
  // its first user.
  void RestoreDefinitionOrder();

 private:
  std::string name_;
  std::vector<std::unique_ptr<Instruction>> instructions_;
  std::map<std::string, Instruction*> by_name_;
  Instruction* root_ = nullptr;
};

// The parameter and result shapes of a computation, with layouts.
struct ProgramShape {
  std::vector<Shape> parameters;
  Shape result;
  std::string ToString() const;  // "(f32[2]{0}, s32[])->f32[2]{0}"
};

class Module {
 public:
  explicit Module(std::string name) : name_(std::move(name)) {}

  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  Computation* AddComputation(std::unique_ptr<Computation> c);
  // Drops computations nothing calls any more (a pass replaced their uses).
  void RemoveComputations(const std::vector<const Computation*>& unused);
  const std::vector<std::unique_ptr<Computation>>& computations() const { return computations_; }
  Computation* entry() const { return entry_; }
  void set_entry(Computation* c) { entry_ = c; }
  Computation* Find(const std::string& name) const;

  // Written `entry_computation_layout`, if any.
  const std::optional<ProgramShape>& entry_layout() const { return entry_layout_; }
  void set_entry_layout(ProgramShape p) { entry_layout_ = std::move(p); }
  // The entry's signature, with the entry_computation_layout applied.
  ProgramShape EntryProgramShape() const;

  // The process grid it was written for (replica_count, num_partitions).
  int64_t replica_count() const { return replica_count_; }
  int64_t num_partitions() const { return num_partitions_; }
  void set_replica_count(int64_t n) { replica_count_ = n; }
  void set_num_partitions(int64_t n) { num_partitions_ = n; }

  // Constants the text wrote as "{...}" (XLA's short dumps), which hold
  // zeros until a value is given; a given value takes its name off.
  const std::vector<std::string>& elided_constants() const { return elided_constants_; }
  void set_elided_constants(std::vector<std::string> names) { elided_constants_ = std::move(names); }
  void GiveElidedConstant(const std::string& name) { std::erase(elided_constants_, name); }

 private:
  std::string name_;
  std::vector<std::unique_ptr<Computation>> computations_;
  Computation* entry_ = nullptr;
  std::optional<ProgramShape> entry_layout_;
  int64_t replica_count_ = 1, num_partitions_ = 1;
  std::vector<std::string> elided_constants_;
};

}  // namespace vkxla
