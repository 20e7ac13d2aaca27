#include "ops/control_flow.h"

#include <cstring>

#include "ops/computation_signature.h"

namespace vkxla {
namespace {

Status OpError(const Instruction& inst, const std::string& message) {
  return InvalidArgument(std::string(OpcodeName(inst.opcode)) + " " + inst.Describe() + ": " + message);
}

Status ExpectOperandCount(const Instruction& inst, size_t n) {
  if (inst.operands.size() == n) return OkStatus();
  return OpError(inst, "takes " + std::to_string(n) + " operand" + (n == 1 ? "" : "s") + ", got " +
                           std::to_string(inst.operands.size()));
}

bool IsScalarOf(const Shape& s, ElementType t) { return s.IsArray() && s.element_type() == t && s.rank() == 0; }

StatusOr<Shape> InferWhile(const Instruction& inst) {
  RETURN_IF_ERROR(ExpectOperandCount(inst, 1));
  const Shape& state = inst.operands[0]->shape;
  ASSIGN_OR_RETURN(const Computation* cond, CalledComputation(inst, "condition", "the loop condition"));
  ASSIGN_OR_RETURN(const Computation* body, CalledComputation(inst, "body", "the loop body"));
  RETURN_IF_ERROR(CheckSignature(inst, *cond, "condition", {state}, {Shape::Scalar(ElementType::kPred)}));
  RETURN_IF_ERROR(CheckSignature(inst, *body, "body", {state}, {state}));
  return state;
}

StatusOr<Shape> InferConditional(const Instruction& inst) {
  if (inst.operands.empty()) return OpError(inst, "needs a branch index or predicate");
  const Shape& selector = inst.operands[0]->shape;
  if (!IsScalarOf(selector, ElementType::kPred) && !IsScalarOf(selector, ElementType::kS32))
    return OpError(inst, "the branch selector must be pred[] or s32[], got " + selector.ToString());
  ASSIGN_OR_RETURN(std::vector<const Computation*> branches, ConditionalBranches(inst));
  if (IsScalarOf(selector, ElementType::kPred) && branches.size() != 2)
    return OpError(inst, "a pred selector needs two branches, got " + std::to_string(branches.size()));
  if (branches.empty()) return OpError(inst, "needs at least one branch");
  if (branches.size() + 1 != inst.operands.size())
    return OpError(inst, std::to_string(branches.size()) + " branches need " + std::to_string(branches.size()) +
                             " branch operands, got " + std::to_string(inst.operands.size() - 1));
  const Shape result = branches[0]->root()->shape;
  for (size_t k = 0; k < branches.size(); ++k)
    RETURN_IF_ERROR(CheckSignature(inst, *branches[k], "branch " + std::to_string(k), {inst.operands[k + 1]->shape},
                                   {result}));
  return result;
}

StatusOr<Shape> InferCall(const Instruction& inst) {
  ASSIGN_OR_RETURN(const Computation* callee, CalledComputation(inst, "to_apply", "the called computation"));
  std::vector<Shape> params;
  for (const Instruction* o : inst.operands) params.push_back(o->shape);
  RETURN_IF_ERROR(CheckSignature(inst, *callee, "callee", params, {callee->root()->shape}));
  return callee->root()->shape;
}

}  // namespace

StatusOr<std::vector<const Computation*>> ConditionalBranches(const Instruction& inst) {
  std::vector<const Computation*> branches;
  const Computation *on_true = nullptr, *on_false = nullptr;
  for (const auto& [key, c] : inst.called_computations) {
    if (key == "branch_computations") branches.push_back(c);
    if (key == "true_computation") on_true = c;
    if (key == "false_computation") on_false = c;
  }
  if (on_true || on_false) {
    if (!on_true || !on_false || !branches.empty())
      return OpError(inst, "needs both true_computation and false_computation, or branch_computations alone");
    return std::vector<const Computation*>{on_true, on_false};
  }
  return branches;
}

int64_t BranchIndex(const Literal& selector, int64_t branches) {
  if (selector.shape().element_type() == ElementType::kPred) return selector.Get(0).Bits() != 0 ? 0 : 1;
  const int64_t i = selector.Get(0).s;
  return i < 0 || i >= branches ? branches - 1 : i;
}

std::string CustomCallTarget(const Instruction& inst) {
  for (const auto& [key, value] : inst.other_attributes)
    if (key == "custom_call_target") {
      std::string v = value;
      if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
      return v;
    }
  return "";
}

bool ForwardsOperand(const Instruction& inst) {
  if (inst.opcode == Opcode::kAddDependency || inst.opcode == Opcode::kOptimizationBarrier) return true;
  if (inst.opcode != Opcode::kCustomCall) return false;
  // Placement and sharding annotations of JAX and PyTorch/XLA exports: one
  // device, one memory space, so each passes its operand through.
  static const char* const kNoOps[] = {"Sharding", "SPMDFullToShardShape", "SPMDShardToFullShape", "MoveToHost",
                                       "MoveToDevice", "annotate_device_placement"};
  const std::string target = CustomCallTarget(inst);
  for (const char* n : kNoOps)
    if (target == n) return true;
  return false;
}

std::optional<StatusOr<Shape>> InferControlFlowShape(const Instruction& inst) {
  switch (inst.opcode) {
    case Opcode::kWhile: return InferWhile(inst);
    case Opcode::kConditional: return InferConditional(inst);
    case Opcode::kCall: return InferCall(inst);
    case Opcode::kAfterAll:
      for (const Instruction* o : inst.operands)
        if (!o->shape.IsToken()) return StatusOr<Shape>(OpError(inst, "operands must be tokens, got " + o->shape.ToString()));
      return Shape::Token();
    case Opcode::kAddDependency: {
      Status s = ExpectOperandCount(inst, 2);
      if (!s.ok()) return StatusOr<Shape>(s);
      if (!inst.operands[1]->shape.IsToken())
        return StatusOr<Shape>(OpError(inst, "the second operand must be a token, got " + inst.operands[1]->shape.ToString()));
      return inst.operands[0]->shape;
    }
    case Opcode::kOptimizationBarrier: {
      Status s = ExpectOperandCount(inst, 1);
      if (!s.ok()) return StatusOr<Shape>(s);
      return inst.operands[0]->shape;
    }
    case Opcode::kCustomCall: {
      if (!ForwardsOperand(inst)) {
        const std::string target = CustomCallTarget(inst);
        return StatusOr<Shape>(Unimplemented("custom-call " + inst.Describe() + ": custom_call_target \"" + target +
                                             "\" is not registered"));
      }
      Status s = ExpectOperandCount(inst, 1);
      if (!s.ok()) return StatusOr<Shape>(s);
      return inst.operands[0]->shape;
    }
    default:
      return std::nullopt;
  }
}

std::optional<StatusOr<Literal>> EvaluateControlFlow(const Instruction& inst, const std::vector<const Literal*>& operands,
                                                    const ComputationEvaluator& evaluate) {
  if (ForwardsOperand(inst)) return *operands[0];
  switch (inst.opcode) {
    case Opcode::kAfterAll:
      return Literal(Shape::Token());
    case Opcode::kCall: {
      std::vector<Literal> args;
      for (const Literal* o : operands) args.push_back(*o);
      return evaluate(*inst.called_computations[0].second, args);
    }
    case Opcode::kConditional: {
      StatusOr<std::vector<const Computation*>> branches = ConditionalBranches(inst);
      if (!branches.ok()) return StatusOr<Literal>(branches.status());
      const int64_t k = BranchIndex(*operands[0], static_cast<int64_t>(branches->size()));
      return evaluate(*(*branches)[k], {*operands[k + 1]});
    }
    case Opcode::kWhile: {
      StatusOr<const Computation*> cond = CalledComputation(inst, "condition", "the loop condition");
      StatusOr<const Computation*> body = CalledComputation(inst, "body", "the loop body");
      if (!cond.ok()) return StatusOr<Literal>(cond.status());
      if (!body.ok()) return StatusOr<Literal>(body.status());
      Literal state = *operands[0];
      for (;;) {
        StatusOr<Literal> go = evaluate(**cond, {state});
        if (!go.ok()) return go;
        if (go->Get(0).Bits() == 0) break;
        StatusOr<Literal> next = evaluate(**body, {state});
        if (!next.ok()) return next;
        state = std::move(*next);
      }
      return state;
    }
    default:
      return std::nullopt;
  }
}

}  // namespace vkxla
