// The planner's rewrites of a module before planning (real FFTs around the
// complex step, random bits apart from their state): a copy of the module
// with chosen instructions replaced by what an expansion writes in their
// place, every computation copied and every call rewired to the copies.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "ir/module.h"
#include "vkxla/status.h"

namespace vkxla {

// Writes the replacement of `original` into `into` (its operands already
// copied as `operands`) and returns what stands for its value.
using Expansion =
    std::function<StatusOr<Instruction*>(Computation& into, const Instruction& original, const std::vector<Instruction*>& operands)>;

// A copy of `module` with every instruction `wants` picks expanded, or null
// when it picks none. The copy's entry signature is `module`'s, or
// `entry_signature` where the expansion changes it.
StatusOr<std::shared_ptr<const Module>> RewriteModule(const Module& module, const std::function<bool(const Instruction&)>& wants,
                                                      const Expansion& expand, const ProgramShape* entry_signature = nullptr);

// A new instruction in `c` named after `origin` ("<origin>.<suffix><n>"),
// at its source position.
Instruction* AddDerived(Computation& c, const Instruction& origin, const std::string& suffix, int& counter, Opcode op,
                        Shape shape, std::vector<Instruction*> operands);

// Writes the ops of one expansion into a computation, each named after the
// instruction it replaces; the data movement expansions share.
class ExpansionWriter {
 public:
  ExpansionWriter(Computation& c, const Instruction& origin, std::string suffix)
      : c_(c), origin_(origin), suffix_(std::move(suffix)) {}

  Instruction* Add(Opcode op, Shape shape, std::vector<Instruction*> operands) {
    return AddDerived(c_, origin_, suffix_, next_, op, std::move(shape), std::move(operands));
  }
  Instruction* Constant(const Scalar& v);
  // `v` broadcast to `dims`.
  Instruction* Filled(const Scalar& v, const std::vector<int64_t>& dims);
  // [start, limit) along `dim`, the other dims whole.
  Instruction* Slice(Instruction* x, int64_t dim, int64_t start, int64_t limit);
  Instruction* Reverse(Instruction* x, int64_t dim);
  Instruction* Concatenate(std::vector<Instruction*> parts, int64_t dim);
  Instruction* Conjugate(Instruction* z);
  // x for real types, its conjugate for complex ones.
  Instruction* ConjugateIfComplex(Instruction* x);

 private:
  Computation& c_;
  const Instruction& origin_;
  std::string suffix_;
  int next_ = 0;
};

}  // namespace vkxla
