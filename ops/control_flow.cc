#include "ops/control_flow.h"

#include <cstring>

#include "ir/numbers.h"
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
  VKXLA_RETURN_IF_ERROR(ExpectOperandCount(inst, 1));
  const Shape& state = inst.operands[0]->shape;
  VKXLA_ASSIGN_OR_RETURN(const Computation* cond, CalledComputation(inst, "condition", "the loop condition"));
  VKXLA_ASSIGN_OR_RETURN(const Computation* body, CalledComputation(inst, "body", "the loop body"));
  VKXLA_RETURN_IF_ERROR(CheckSignature(inst, *cond, "condition", {state}, {Shape::Scalar(ElementType::kPred)}));
  VKXLA_RETURN_IF_ERROR(CheckSignature(inst, *body, "body", {state}, {state}));
  return state;
}

StatusOr<Shape> InferConditional(const Instruction& inst) {
  if (inst.operands.empty()) return OpError(inst, "needs a branch index or predicate");
  const Shape& selector = inst.operands[0]->shape;
  if (!IsScalarOf(selector, ElementType::kPred) && !IsScalarOf(selector, ElementType::kS32))
    return OpError(inst, "the branch selector must be pred[] or s32[], got " + selector.ToString());
  VKXLA_ASSIGN_OR_RETURN(std::vector<const Computation*> branches, ConditionalBranches(inst));
  if (IsScalarOf(selector, ElementType::kPred) && branches.size() != 2)
    return OpError(inst, "a pred selector needs two branches, got " + std::to_string(branches.size()));
  if (branches.empty()) return OpError(inst, "needs at least one branch");
  if (branches.size() + 1 != inst.operands.size())
    return OpError(inst, std::to_string(branches.size()) + " branches need " + std::to_string(branches.size()) +
                             " branch operands, got " + std::to_string(inst.operands.size() - 1));
  const Shape result = branches[0]->root()->shape;
  for (size_t k = 0; k < branches.size(); ++k)
    VKXLA_RETURN_IF_ERROR(CheckSignature(inst, *branches[k], "branch " + std::to_string(k), {inst.operands[k + 1]->shape},
                                   {result}));
  return result;
}

StatusOr<Shape> InferCall(const Instruction& inst) {
  VKXLA_ASSIGN_OR_RETURN(const Computation* callee, CalledComputation(inst, "to_apply", "the called computation"));
  std::vector<Shape> params;
  for (const Instruction* o : inst.operands) params.push_back(o->shape);
  VKXLA_RETURN_IF_ERROR(CheckSignature(inst, *callee, "callee", params, {callee->root()->shape}));
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

int64_t ChannelId(const Instruction& inst) {
  for (const auto& [key, value] : inst.other_attributes)
    if (key == "channel_id") {
      std::optional<int64_t> v = ParseInt64(value);
      return v ? *v : 0;
    }
  return 0;
}

bool ForwardsOperand(const Instruction& inst) {
  if (inst.opcode == Opcode::kAddDependency || inst.opcode == Opcode::kOptimizationBarrier) return true;
  // recv-done's (data, token) is recv's (data, context, token) without the
  // context: element 0 is element 0; send-done's token orders nothing more.
  if (inst.opcode == Opcode::kRecvDone || inst.opcode == Opcode::kSendDone) return true;
  // The done and update halves of async collectives, once their start is
  // the collective itself (frontends/async_collectives.h).
  if (inst.opcode == Opcode::kAllReduceDone || inst.opcode == Opcode::kAllGatherDone ||
      inst.opcode == Opcode::kCollectivePermuteDone || inst.opcode == Opcode::kAsyncUpdate || inst.opcode == Opcode::kAsyncDone)
    return true;
  if (inst.opcode != Opcode::kCustomCall) return false;
  // Placement and sharding annotations of JAX and PyTorch/XLA exports: one
  // device, one memory space, so each passes its operand through.
  static const char* const kNoOps[] = {"Sharding", "SPMDFullToShardShape", "SPMDShardToFullShape", "MoveToHost",
                                       "MoveToDevice", "annotate_device_placement", "xla.sdy.FuncResultSharding"};
  const std::string target = CustomCallTarget(inst);
  for (const char* n : kNoOps)
    if (target == n) return true;
  // Shardy's manual-computation boundaries change nothing where the manual
  // axes have one device (the local shape is the global one).
  if ((target == "xla.sdy.GlobalToLocalShape" || target == "xla.sdy.LocalToGlobalShape") && inst.operands.size() == 1)
    return inst.operands[0]->shape.Compatible(inst.shape);
  return false;
}

std::string_view ApiVersionName(int version) {
  static const char* const kNames[kApiVersions] = {"API_VERSION_UNSPECIFIED", "API_VERSION_ORIGINAL",
                                                   "API_VERSION_STATUS_RETURNING", "API_VERSION_STATUS_RETURNING_UNIFIED",
                                                   "API_VERSION_TYPED_FFI"};
  return version >= 0 && version < kApiVersions ? kNames[version] : "";
}

bool IsHostCustomCall(const Instruction& inst) {
  return inst.opcode == Opcode::kCustomCall && FindHostCustomCall(CustomCallTarget(inst)).has_value();
}

bool IsGlslCustomCall(const Instruction& inst) {
  return inst.opcode == Opcode::kCustomCall && FindGlslCustomCall(CustomCallTarget(inst)).has_value();
}

CustomCallContext CustomCallContextOf(const Instruction& inst) {
  CustomCallContext c;
  for (const auto& [key, value] : inst.other_attributes) {
    if (key == "backend_config") c.backend_config = value;
    if (key == "api_version")
      for (int v = 0; v < kApiVersions; ++v)
        if (value == ApiVersionName(v)) c.api_version = v;
  }
  return c;
}

namespace {

// The array leaves of a flat shape (an array, or a tuple of arrays and tokens).
StatusOr<std::vector<Shape>> FlatLeaves(const Instruction& inst, const Shape& s) {
  if (s.IsArray()) return std::vector<Shape>{s};
  std::vector<Shape> leaves;
  if (!s.IsTuple()) return leaves;
  for (const Shape& e : s.tuple_shapes()) {
    if (e.IsToken()) continue;
    if (!e.IsArray()) return OpError(inst, "nested tuples in " + s.ToString() + " are not supported");
    leaves.push_back(e);
  }
  return leaves;
}

}  // namespace

StatusOr<std::vector<Literal>> RunHostCustomCall(const Instruction& inst, const std::vector<Literal>& operand_leaves) {
  const std::string target = CustomCallTarget(inst);
  std::optional<HostCustomCall> f = FindHostCustomCall(target);
  if (!f) return Unimplemented("custom-call " + inst.Describe() + ": custom_call_target \"" + target + "\" is not registered");
  VKXLA_ASSIGN_OR_RETURN(std::vector<Shape> want, FlatLeaves(inst, inst.shape));
  std::vector<Literal> results;
  VKXLA_RETURN_IF_ERROR((*f)(operand_leaves, CustomCallContextOf(inst), results));
  if (results.size() != want.size())
    return OpError(inst, "\"" + target + "\" gave " + std::to_string(results.size()) + " results for " + inst.shape.ToString());
  for (size_t k = 0; k < want.size(); ++k)
    if (!results[k].shape().Compatible(Shape(want[k].element_type(), want[k].dims())))
      return OpError(inst, "\"" + target + "\" gave " + results[k].shape().ToString() + " for result " + std::to_string(k) +
                               ", declared " + want[k].ToString());
  return results;
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
    case Opcode::kAllReduceDone: case Opcode::kAllGatherDone: case Opcode::kCollectivePermuteDone: case Opcode::kAsyncUpdate:
    case Opcode::kAsyncDone:
    case Opcode::kOptimizationBarrier: {
      Status s = ExpectOperandCount(inst, 1);
      if (!s.ok()) return StatusOr<Shape>(s);
      return inst.operands[0]->shape;
    }
    case Opcode::kInfeed: {
      Status s = ExpectOperandCount(inst, 1);
      if (s.ok() && !inst.operands[0]->shape.IsToken()) s = OpError(inst, "the operand must be a token, got " + inst.operands[0]->shape.ToString());
      const Shape& r = inst.shape;
      if (s.ok() && !(r.IsTuple() && r.tuple_shapes().size() == 2 && r.tuple_shapes()[1].IsToken()))
        s = OpError(inst, "the result must be (data, token[]), got " + r.ToString());
      if (s.ok()) s = FlatLeaves(inst, r.tuple_shapes()[0]).status();
      if (!s.ok()) return StatusOr<Shape>(s);
      return r;
    }
    case Opcode::kSend: {
      // (data, u32[] context, token), sent to the host on channel_id.
      Status s = ExpectOperandCount(inst, 2);
      if (s.ok() && !inst.operands[1]->shape.IsToken()) s = OpError(inst, "the second operand must be a token, got " + inst.operands[1]->shape.ToString());
      if (s.ok() && !inst.operands[0]->shape.IsArray()) s = OpError(inst, "sends one array, got " + inst.operands[0]->shape.ToString());
      if (!s.ok()) return StatusOr<Shape>(s);
      return Shape::Tuple({inst.operands[0]->shape, Shape::Scalar(ElementType::kU32), Shape::Token()});
    }
    case Opcode::kRecv: {
      Status s = ExpectOperandCount(inst, 1);
      if (s.ok() && !inst.operands[0]->shape.IsToken()) s = OpError(inst, "the operand must be a token, got " + inst.operands[0]->shape.ToString());
      const Shape& r = inst.shape;
      if (s.ok() && !(r.IsTuple() && r.tuple_shapes().size() == 3 && r.tuple_shapes()[0].IsArray() && r.tuple_shapes()[2].IsToken()))
        s = OpError(inst, "the result must be (array, u32[], token[]), got " + r.ToString());
      if (!s.ok()) return StatusOr<Shape>(s);
      return r;
    }
    case Opcode::kSendDone: case Opcode::kRecvDone: {
      const Opcode start = inst.opcode == Opcode::kSendDone ? Opcode::kSend : Opcode::kRecv;
      Status s = ExpectOperandCount(inst, 1);
      if (s.ok() && inst.operands[0]->opcode != start)
        s = OpError(inst, "the operand must be a " + std::string(OpcodeName(start)) + ", got " + inst.operands[0]->Describe());
      if (!s.ok()) return StatusOr<Shape>(s);
      if (inst.opcode == Opcode::kSendDone) return Shape::Token();
      return Shape::Tuple({inst.operands[0]->shape.tuple_shapes()[0], Shape::Token()});
    }
    case Opcode::kOutfeed: {
      Status s = ExpectOperandCount(inst, 2);
      if (s.ok() && !inst.operands[1]->shape.IsToken()) s = OpError(inst, "the second operand must be a token, got " + inst.operands[1]->shape.ToString());
      if (s.ok()) s = FlatLeaves(inst, inst.operands[0]->shape).status();
      if (!s.ok()) return StatusOr<Shape>(s);
      return Shape::Token();
    }
    case Opcode::kCustomCall: {
      if (IsGlslCustomCall(inst)) {
        // Elementwise: every operand an array of the result's dims.
        if (!inst.shape.IsArray()) return StatusOr<Shape>(OpError(inst, "a GLSL custom call gives one array, not " + inst.shape.ToString()));
        for (const Instruction* o : inst.operands)
          if (!o->shape.IsArray() || o->shape.dims() != inst.shape.dims())
            return StatusOr<Shape>(OpError(inst, "a GLSL custom call is elementwise: operand " + o->shape.ToString() +
                                                     " does not have the dims of " + inst.shape.ToString()));
        return Shape(inst.shape.element_type(), inst.shape.dims());
      }
      if (IsHostCustomCall(inst)) {
        // The declared shape is the result's; operands are arrays (or flat tuples).
        for (const Instruction* o : inst.operands) {
          Status s = FlatLeaves(inst, o->shape).status();
          if (!s.ok()) return StatusOr<Shape>(s);
        }
        StatusOr<std::vector<Shape>> leaves = FlatLeaves(inst, inst.shape);
        if (!leaves.ok()) return StatusOr<Shape>(leaves.status());
        return inst.shape;
      }
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
                                                    const ComputationEvaluator& evaluate, EvaluationFeeds* feeds) {
  if (inst.opcode == Opcode::kSendDone) return Literal(Shape::Token());
  if (inst.opcode == Opcode::kRecvDone) return Literal::Tuple({operands[0]->tuple_elements()[0], Literal(Shape::Token())});
  if (ForwardsOperand(inst)) return *operands[0];
  auto leaves_of = [](const Literal& l, std::vector<Literal>& out) {
    if (!l.shape().IsTuple()) {
      if (!l.shape().IsToken()) out.push_back(l);
      return;
    }
    for (const Literal& e : l.tuple_elements())
      if (!e.shape().IsToken()) out.push_back(e);
  };
  switch (inst.opcode) {
    case Opcode::kInfeed: {
      if (!feeds || feeds->infeed.empty())
        return StatusOr<Literal>(FailedPrecondition("infeed " + inst.Describe() + ": the infeed queue is empty"));
      Literal v = std::move(feeds->infeed.front());
      feeds->infeed.pop_front();
      if (!v.shape().Compatible(inst.shape.tuple_shapes()[0]))
        return StatusOr<Literal>(InvalidArgument("infeed " + inst.Describe() + ": the queue's next value is " +
                                                 v.shape().ToString() + ", the op reads " + inst.shape.tuple_shapes()[0].ToString()));
      return Literal::Tuple({std::move(v), Literal(Shape::Token())});
    }
    case Opcode::kSend: {
      if (!feeds) return StatusOr<Literal>(FailedPrecondition("send " + inst.Describe() + ": no host channels"));
      if (feeds->process.transport) {
        if (Status sent = feeds->process.transport->Send(feeds->process.self, inst, *operands[0]); !sent.ok())
          return StatusOr<Literal>(sent);
      } else {
        feeds->from_device[ChannelId(inst)].push_back(*operands[0]);
      }
      return Literal::Tuple({*operands[0], Literal::ScalarOf(Scalar::UInt(ElementType::kU32, 0)), Literal(Shape::Token())});
    }
    case Opcode::kRecv: {
      if (feeds && feeds->process.transport) {
        StatusOr<Literal> v = feeds->process.transport->Receive(feeds->process.self, inst);
        if (!v.ok()) return StatusOr<Literal>(v.status());
        return Literal::Tuple({std::move(*v), Literal::ScalarOf(Scalar::UInt(ElementType::kU32, 0)), Literal(Shape::Token())});
      }
      std::deque<Literal>* q = feeds ? &feeds->to_device[ChannelId(inst)] : nullptr;
      if (!q || q->empty())
        return StatusOr<Literal>(FailedPrecondition("recv " + inst.Describe() + ": nothing was sent to channel " +
                                                    std::to_string(ChannelId(inst))));
      Literal v = std::move(q->front());
      q->pop_front();
      return Literal::Tuple({std::move(v), Literal::ScalarOf(Scalar::UInt(ElementType::kU32, 0)), Literal(Shape::Token())});
    }
    case Opcode::kOutfeed:
      if (!feeds) return StatusOr<Literal>(FailedPrecondition("outfeed " + inst.Describe() + ": no outfeed queue"));
      feeds->outfeed.push_back(*operands[0]);
      return Literal(Shape::Token());
    case Opcode::kCustomCall: {
      if (std::optional<GlslCustomCall> g = FindGlslCustomCall(CustomCallTarget(inst))) {
        if (!g->reference)
          return StatusOr<Literal>(Unimplemented("custom-call " + inst.Describe() + ": \"" + CustomCallTarget(inst) +
                                                 "\" has no host reference to evaluate it with"));
        Literal r(Shape(inst.shape.element_type(), inst.shape.dims()));
        std::vector<Scalar> args(operands.size());
        for (int64_t i = 0; i < r.element_count(); ++i) {
          for (size_t k = 0; k < operands.size(); ++k) args[k] = operands[k]->Get(i);
          r.Set(i, g->reference(args));
        }
        return r;
      }
      std::vector<Literal> args;
      for (const Literal* o : operands) leaves_of(*o, args);
      StatusOr<std::vector<Literal>> r = RunHostCustomCall(inst, args);
      if (!r.ok()) return StatusOr<Literal>(r.status());
      if (!inst.shape.IsTuple()) return std::move((*r)[0]);
      std::vector<Literal> elements;
      size_t next = 0;
      for (const Shape& e : inst.shape.tuple_shapes()) elements.push_back(e.IsToken() ? Literal(Shape::Token()) : std::move((*r)[next++]));
      return Literal::Tuple(std::move(elements));
    }
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
