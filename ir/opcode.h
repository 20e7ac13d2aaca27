// Every XLA HLO opcode the text format names. An opcode being listed here
// means it parses; whether it runs is decided in ops/ (kernel lowering) and
// reported as an Unimplemented error naming the op when it does not.
#pragma once

#include <optional>
#include <string_view>

namespace vkxla {

#define VKXLA_OPCODES(X)                                                      \
  X(kAbs, "abs") X(kAdd, "add") X(kAnd, "and") X(kAtan2, "atan2")               \
  X(kCbrt, "cbrt") X(kCeil, "ceil") X(kClz, "count-leading-zeros")             \
  X(kComplex, "complex") X(kCompare, "compare") X(kCos, "cosine")              \
  X(kCosh, "cosh") X(kDivide, "divide") X(kErf, "erf") X(kExp, "exponential")  \
  X(kExpm1, "exponential-minus-one") X(kFloor, "floor") X(kImag, "imag")       \
  X(kIsFinite, "is-finite") X(kLog, "log") X(kLog1p, "log-plus-one")           \
  X(kLogistic, "logistic") X(kMaximum, "maximum") X(kMinimum, "minimum")       \
  X(kMultiply, "multiply") X(kNegate, "negate") X(kNot, "not") X(kOr, "or")    \
  X(kPopulationCount, "popcnt") X(kPower, "power") X(kReal, "real")            \
  X(kRemainder, "remainder") X(kRoundNearestAfz, "round-nearest-afz")          \
  X(kRoundNearestEven, "round-nearest-even") X(kRsqrt, "rsqrt")                \
  X(kSelect, "select") X(kShiftLeft, "shift-left")                             \
  X(kShiftRightArithmetic, "shift-right-arithmetic")                           \
  X(kShiftRightLogical, "shift-right-logical") X(kSign, "sign")                \
  X(kSin, "sine") X(kSqrt, "sqrt") X(kSubtract, "subtract") X(kTan, "tan")     \
  X(kTanh, "tanh") X(kXor, "xor") X(kClamp, "clamp")                           \
  X(kConvert, "convert") X(kBitcastConvert, "bitcast-convert")                 \
  X(kReducePrecision, "reduce-precision") X(kBroadcast, "broadcast")           \
  X(kIota, "iota") X(kTuple, "tuple") X(kGetTupleElement, "get-tuple-element") \
  X(kParameter, "parameter") X(kConstant, "constant")                          \
  /* Ops of later issues: they parse, and the compiler names them. */          \
  X(kAfterAll, "after-all") X(kAddDependency, "add-dependency")               \
  X(kAllGather, "all-gather")                                                  \
  X(kAllReduce, "all-reduce") X(kAllToAll, "all-to-all")                       \
  X(kBatchNormGrad, "batch-norm-grad")                                         \
  X(kBatchNormInference, "batch-norm-inference")                               \
  X(kBatchNormTraining, "batch-norm-training") X(kBitcast, "bitcast")          \
  X(kCall, "call") X(kCholesky, "cholesky")                                    \
  X(kCollectiveBroadcast, "collective-broadcast")                              \
  X(kCollectivePermute, "collective-permute")                                  \
  X(kConcatenate, "concatenate") X(kConditional, "conditional")                \
  X(kConvolution, "convolution") X(kCopy, "copy")                              \
  X(kCustomCall, "custom-call") X(kDot, "dot")                                 \
  X(kRaggedDot, "ragged-dot") X(kScaledDot, "scaled-dot")                      \
  X(kDynamicReshape, "dynamic-reshape") X(kDynamicSlice, "dynamic-slice")      \
  X(kDynamicUpdateSlice, "dynamic-update-slice") X(kFft, "fft")                \
  X(kGather, "gather") X(kGetDimensionSize, "get-dimension-size")              \
  X(kInfeed, "infeed") X(kMap, "map")                                          \
  X(kOptimizationBarrier, "opt-barrier") X(kOutfeed, "outfeed")                \
  X(kPad, "pad") X(kPartitionId, "partition-id") X(kRecv, "recv")              \
  X(kRecvDone, "recv-done") X(kSendDone, "send-done")                          \
  X(kReduce, "reduce") X(kReduceScatter, "reduce-scatter")                     \
  X(kReduceWindow, "reduce-window") X(kReplicaId, "replica-id")                \
  X(kReshape, "reshape") X(kReverse, "reverse") X(kRng, "rng")                 \
  X(kRngBitGenerator, "rng-bit-generator") X(kScatter, "scatter")              \
  X(kRngGetAndUpdateState, "rng-get-and-update-state")                         \
  X(kSelectAndScatter, "select-and-scatter") X(kSend, "send")                  \
  X(kScan, "scan") X(kSetDimensionSize, "set-dimension-size") X(kSlice, "slice")                \
  X(kSort, "sort") X(kTopK, "topk") X(kTranspose, "transpose")                 \
  X(kTriangularSolve, "triangular-solve") X(kWhile, "while")                  \
  /* Async pairs of scheduled dumps (frontends/async_collectives.h). */       \
  X(kAllReduceStart, "all-reduce-start") X(kAllReduceDone, "all-reduce-done") \
  X(kAllGatherStart, "all-gather-start") X(kAllGatherDone, "all-gather-done") \
  X(kCollectivePermuteStart, "collective-permute-start")                      \
  X(kCollectivePermuteDone, "collective-permute-done")                        \
  X(kAsyncStart, "async-start") X(kAsyncUpdate, "async-update")               \
  X(kAsyncDone, "async-done") X(kRaggedAllToAll, "ragged-all-to-all")

enum class Opcode {
#define VKXLA_OPCODE_ENUM(e, s) e,
  VKXLA_OPCODES(VKXLA_OPCODE_ENUM)
#undef VKXLA_OPCODE_ENUM
};

std::string_view OpcodeName(Opcode op);
std::optional<Opcode> ParseOpcode(std::string_view name);

}  // namespace vkxla
