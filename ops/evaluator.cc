#include "ops/evaluator.h"

#include "ops/control_flow.h"

#include "ops/batch_norm.h"
#include "ops/convolution.h"
#include "ops/dot.h"
#include "ops/window.h"
#include "ops/ragged_dot.h"
#include "ops/cholesky.h"
#include "ops/fft.h"
#include "ops/rng.h"
#include "ops/rng_bit_generator.h"
#include "ops/triangular_solve.h"
#include "ops/collectives.h"

#include <thread>
#include "ops/scaled_dot.h"

#include "ir/layout_index.h"
#include "ops/data_movement_reference.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "ops/elementwise_reference.h"
#include "ops/indexing_reference.h"
#include "ops/op_traits.h"
#include "ops/reduction_reference.h"

namespace vkxla {
namespace {

Literal EvaluateElementwiseOp(const Instruction& inst, const std::vector<const Literal*>& operands) {
  Literal out(inst.shape);
  const int64_t n = out.element_count();
  const ElementType t = inst.shape.element_type();
  std::vector<Scalar> values(operands.size());
  for (int64_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < operands.size(); ++k)
      values[k] = operands[k]->Get(operands[k]->shape().rank() == 0 ? 0 : i);  // scalar bounds of select/clamp
    out.Set(i, EvaluateElementwise(inst, values.data(), t));
  }
  return out;
}

Literal EvaluateBroadcast(const Instruction& inst, const Literal& x) {
  Literal out(inst.shape);
  const auto& dims = *inst.dimensions;
  const auto& in_dims = x.shape().dims();
  std::vector<int64_t> in_index(in_dims.size());
  for (int64_t i = 0; i < out.element_count(); ++i) {
    std::vector<int64_t> index = MultiIndex(inst.shape.dims(), i);
    for (size_t d = 0; d < dims.size(); ++d) in_index[d] = in_dims[d] == 1 ? 0 : index[dims[d]];
    out.Set(i, x.Get(LinearIndex(in_dims, in_index)));
  }
  return out;
}

Literal EvaluateIota(const Instruction& inst) {
  Literal out(inst.shape);
  const ElementType t = inst.shape.element_type();
  for (int64_t i = 0; i < out.element_count(); ++i) {
    int64_t v = MultiIndex(inst.shape.dims(), i)[inst.iota_dimension];
    out.Set(i, Scalar::Convert(Scalar::Int(ElementType::kS64, v), t));
  }
  return out;
}

// Applies a scalar computation (scatter's update, reduce's, comparators) to
// scalar arguments; a tuple root gives several values.
ScalarFunction ScalarCombiner(const Computation& c) {
  return [&c](const std::vector<Scalar>& args) -> StatusOr<std::vector<Scalar>> {
    std::vector<Literal> literals;
    for (const Scalar& a : args) literals.push_back(Literal::ScalarOf(a));
    VKXLA_ASSIGN_OR_RETURN(Literal r, EvaluateComputation(c, literals));
    std::vector<Scalar> values;
    if (r.shape().IsTuple()) {
      for (const Literal& e : r.tuple_elements()) values.push_back(e.Get(0));
    } else {
      values.push_back(r.Get(0));
    }
    return values;
  };
}

// The shape of `inst`'s value given its operands' values: each dynamic
// dimension takes the size they carry (or, for set-dimension-size and
// dynamic-reshape, the size they compute), clamped to the bound.
StatusOr<Shape> RunTimeShape(const Instruction& inst, const std::vector<const Literal*>& operands) {
  Shape s(inst.shape.element_type(), inst.shape.dims());
  auto size_value = [&](const Literal* l, int64_t bound) {
    return std::clamp<int64_t>(l->Get(0).s, 0, bound);
  };
  switch (inst.opcode) {
    case Opcode::kSetDimensionSize: {
      std::vector<int64_t> dims = operands[0]->shape().dims();
      const int64_t d = (*inst.dimensions)[0];
      dims[d] = size_value(operands[1], inst.shape.dim(d));
      return Shape(s.element_type(), dims);
    }
    case Opcode::kDynamicReshape: {
      std::vector<int64_t> dims = s.dims();
      for (int64_t d = 0; d < s.rank(); ++d)
        if (inst.shape.is_dynamic_dim(d)) dims[d] = size_value(operands[1 + d], dims[d]);
      return Shape(s.element_type(), dims);
    }
    case Opcode::kTranspose: {
      std::vector<int64_t> dims;
      for (int64_t d : *inst.dimensions) dims.push_back(operands[0]->shape().dim(d));
      return Shape(s.element_type(), dims);
    }
    case Opcode::kBroadcast: {
      std::vector<int64_t> dims = s.dims();
      for (size_t k = 0; k < inst.dimensions->size(); ++k) dims[(*inst.dimensions)[k]] = operands[0]->shape().dim(k);
      return Shape(s.element_type(), dims);
    }
    case Opcode::kReduceWindow: {  // the windows over the run-time sizes
      VKXLA_ASSIGN_OR_RETURN(Window w, WindowOf(inst, operands[0]->shape().rank()));
      return Shape(s.element_type(), WindowedDims(operands[0]->shape().dims(), w));
    }
    case Opcode::kReduce: {  // the kept dims' sizes
      std::vector<int64_t> dims;
      for (int64_t d = 0; d < operands[0]->shape().rank(); ++d)
        if (std::find(inst.dimensions->begin(), inst.dimensions->end(), d) == inst.dimensions->end())
          dims.push_back(operands[0]->shape().dim(d));
      return Shape(s.element_type(), dims);
    }
    default: {
      // Elementwise ops and copies: the sizes of an operand of the same rank.
      for (const Literal* o : operands)
        if (o->shape().rank() == s.rank()) return Shape(s.element_type(), o->shape().dims());
      return s;
    }
  }
}

}  // namespace

Literal BitcastConvertLiteral(const Literal& x, const Shape& to) {
  Literal out(Shape(to.element_type(), to.dims()));
  const int in_bits = BitWidth(x.shape().element_type()), out_bits = BitWidth(to.element_type());
  if (in_bits == out_bits && ByteWidth(x.shape().element_type()) == ByteWidth(to.element_type()) && in_bits % 8 == 0) {
    out.bytes() = x.bytes();
    return out;
  }
  // Through a packed little-endian bit stream, so 4-bit types work too.
  const int64_t total_bits = x.element_count() * in_bits;
  std::vector<uint8_t> stream((total_bits + 7) / 8, 0);
  auto put = [&](int64_t bit, uint64_t v, int width) {
    for (int b = 0; b < width; ++b)
      if ((v >> b) & 1) stream[(bit + b) / 8] |= uint8_t(1u << ((bit + b) % 8));
  };
  auto get = [&](int64_t bit, int width) {
    uint64_t v = 0;
    for (int b = 0; b < width; ++b) v |= uint64_t((stream[(bit + b) / 8] >> ((bit + b) % 8)) & 1) << b;
    return v;
  };
  const bool in_complex = IsComplex(x.shape().element_type()), out_complex = IsComplex(to.element_type());
  for (int64_t i = 0; i < x.element_count(); ++i) {
    if (in_complex) {
      const int w = ByteWidth(x.shape().element_type());
      for (int byte = 0; byte < w; ++byte) put((i * w + byte) * 8, x.bytes()[i * w + byte], 8);
    } else {
      put(i * in_bits, x.Get(i).Bits(), in_bits);
    }
  }
  for (int64_t i = 0; i < out.element_count(); ++i) {
    if (out_complex) {
      const int w = ByteWidth(to.element_type());
      for (int byte = 0; byte < w; ++byte) out.bytes()[i * w + byte] = static_cast<uint8_t>(get((i * w + byte) * 8, 8));
    } else {
      out.Set(i, Scalar::FromBits(to.element_type(), get(i * out_bits, out_bits)));
    }
  }
  return out;
}

bool FitsShape(const Shape& value, const Shape& declared) {
  if (declared.IsTuple()) {
    if (!value.IsTuple() || value.tuple_shapes().size() != declared.tuple_shapes().size()) return false;
    for (size_t k = 0; k < declared.tuple_shapes().size(); ++k)
      if (!FitsShape(value.tuple_shapes()[k], declared.tuple_shapes()[k])) return false;
    return true;
  }
  if (value.element_type() != declared.element_type() || value.rank() != declared.rank()) return false;
  if (!declared.IsArray()) return value.Compatible(declared);
  for (int64_t d = 0; d < declared.rank(); ++d)
    if (declared.is_dynamic_dim(d) ? value.dim(d) > declared.dim(d) : value.dim(d) != declared.dim(d)) return false;
  return true;
}

Status CheckArguments(const Computation& computation, const std::vector<Literal>& arguments) {
  auto params = computation.parameters();
  if (params.size() != arguments.size())
    return InvalidArgument("computation " + computation.name() + " takes " + std::to_string(params.size()) +
                           " parameters, got " + std::to_string(arguments.size()) + " arguments");
  for (size_t i = 0; i < params.size(); ++i)
    if (!FitsShape(arguments[i].shape(), params[i]->shape))
      return InvalidArgument("parameter " + std::to_string(i) + " (%" + params[i]->name + ") is " +
                             params[i]->shape.ToString() + " but the argument is " + arguments[i].shape().ToString());
  return OkStatus();
}

namespace {
// The queues infeed and outfeed use while EvaluateModule(..., feeds) runs.
thread_local EvaluationFeeds* current_feeds = nullptr;
}  // namespace

StatusOr<Literal> EvaluateComputation(const Computation& computation, const std::vector<Literal>& arguments) {
  VKXLA_RETURN_IF_ERROR(CheckArguments(computation, arguments));
  std::map<const Instruction*, Literal> values;
  for (const auto& owned : computation.instructions()) {
    std::vector<const Literal*> operands;
    for (const Instruction* o : owned->operands) operands.push_back(&values.at(o));
    // Dynamic dimensions: evaluate at the sizes the operands have now.
    Instruction sized;
    if (owned->shape.IsArray() && !owned->shape.is_static() && owned->opcode != Opcode::kParameter) {
      sized = *owned;
      VKXLA_ASSIGN_OR_RETURN(sized.shape, RunTimeShape(*owned, operands));
    }
    const Instruction& inst = sized.shape.IsArray() ? sized : *owned;
    Literal result;
    if (IsElementwise(inst.opcode) && inst.opcode != Opcode::kBitcastConvert) {
      result = EvaluateElementwiseOp(inst, operands);
    } else {
      switch (inst.opcode) {
        case Opcode::kParameter: result = arguments[inst.parameter_number]; break;
        case Opcode::kConstant: result = *inst.literal; break;
        case Opcode::kIota: result = EvaluateIota(inst); break;
        case Opcode::kBroadcast: result = EvaluateBroadcast(inst, *operands[0]); break;
        case Opcode::kBitcastConvert: result = BitcastConvertLiteral(*operands[0], inst.shape); break;
        case Opcode::kCopy: result = *operands[0]; break;
        case Opcode::kReshape: case Opcode::kTranspose: case Opcode::kReverse: case Opcode::kSlice:
        case Opcode::kConcatenate: case Opcode::kPad: {
          VKXLA_ASSIGN_OR_RETURN(result, EvaluateDataMovement(inst, operands));
          break;
        }
        case Opcode::kGetDimensionSize:
          result = Literal::ScalarOf(Scalar::Int(ElementType::kS32, operands[0]->shape().dim((*inst.dimensions)[0])));
          break;
        case Opcode::kSetDimensionSize:
          // The operand's elements that fit the new size; any new ones are padding.
          result = Resized(*operands[0], inst.shape.dims());
          break;
        case Opcode::kDynamicReshape: {
          if (operands[0]->element_count() != inst.shape.element_count())
            return InvalidArgument("dynamic-reshape " + inst.Describe() + ": sizes " + inst.shape.ToString(false) +
                                   " hold " + std::to_string(inst.shape.element_count()) + " elements but the operand " +
                                   operands[0]->shape().ToString(false) + " has " +
                                   std::to_string(operands[0]->element_count()));
          result = Literal(inst.shape);
          for (int64_t i = 0; i < result.element_count(); ++i) result.Set(i, operands[0]->Get(i));
          break;
        }
        case Opcode::kDynamicSlice: {
          VKXLA_ASSIGN_OR_RETURN(result, EvaluateDynamicSlice(inst, operands));
          break;
        }
        case Opcode::kDynamicUpdateSlice: {
          VKXLA_ASSIGN_OR_RETURN(result, EvaluateDynamicUpdateSlice(inst, operands));
          break;
        }
        case Opcode::kGather: {
          VKXLA_ASSIGN_OR_RETURN(result, EvaluateGather(inst, operands));
          break;
        }
        case Opcode::kScatter: {
          VKXLA_ASSIGN_OR_RETURN(result, EvaluateScatter(inst, operands, ScalarCombiner(*inst.called_computations[0].second)));
          break;
        }
        case Opcode::kDot: {
          if (IsDynamicDot(*owned)) {
            VKXLA_ASSIGN_OR_RETURN(result, EvaluateDynamicDot(*owned, *operands[0], *operands[1]));
            break;
          }
          VKXLA_ASSIGN_OR_RETURN(result, EvaluateDot(inst, *operands[0], *operands[1]));
          break;
        }
        case Opcode::kBatchNormTraining: case Opcode::kBatchNormInference: case Opcode::kBatchNormGrad: {
          VKXLA_ASSIGN_OR_RETURN(result, EvaluateBatchNorm(inst, operands));
          break;
        }
        case Opcode::kConvolution: {
          VKXLA_ASSIGN_OR_RETURN(result, EvaluateConvolution(inst, *operands[0], *operands[1]));
          break;
        }
        case Opcode::kRaggedDot: {
          VKXLA_ASSIGN_OR_RETURN(result, EvaluateRaggedDot(inst, *operands[0], *operands[1], *operands[2]));
          break;
        }
        case Opcode::kScaledDot: {
          VKXLA_ASSIGN_OR_RETURN(result, EvaluateScaledDot(inst, *operands[0], *operands[1], *operands[2], *operands[3]));
          break;
        }
        case Opcode::kReduce: {
          VKXLA_ASSIGN_OR_RETURN(result, EvaluateReduce(inst, operands, ScalarCombiner));
          break;
        }
        case Opcode::kReduceWindow: {
          VKXLA_ASSIGN_OR_RETURN(result, EvaluateReduceWindow(inst, operands, ScalarCombiner));
          break;
        }
        case Opcode::kSelectAndScatter: {
          VKXLA_ASSIGN_OR_RETURN(result, EvaluateSelectAndScatter(inst, operands, ScalarCombiner));
          break;
        }
        case Opcode::kScan: {
          const Computation& step = *inst.called_computations[0].second;
          VKXLA_ASSIGN_OR_RETURN(result, EvaluateScan(inst, operands, [&step](const std::vector<Literal>& args)
                                                                    -> StatusOr<std::vector<Literal>> {
            VKXLA_ASSIGN_OR_RETURN(Literal r, EvaluateComputation(step, args));
            if (r.shape().IsTuple()) return r.tuple_elements();
            return std::vector<Literal>{std::move(r)};
          }));
          break;
        }
        case Opcode::kSort: {
          VKXLA_ASSIGN_OR_RETURN(result, EvaluateSort(inst, operands, ScalarCombiner));
          break;
        }
        case Opcode::kFft: {
          VKXLA_ASSIGN_OR_RETURN(result, EvaluateFft(inst, *operands[0]));
          break;
        }
        case Opcode::kRngGetAndUpdateState: case Opcode::kRng: {
          if (!current_feeds)
            return FailedPrecondition(std::string(OpcodeName(inst.opcode)) + " " + inst.Describe() +
                                      ": the rng counter is the state of a module run (EvaluateModule)");
          if (inst.opcode == Opcode::kRngGetAndUpdateState) {
            VKXLA_ASSIGN_OR_RETURN(int64_t delta, ReadRngDelta(inst));
            result = TakeRngCounter(current_feeds->rng_counter, static_cast<uint64_t>(delta));
          } else {
            VKXLA_ASSIGN_OR_RETURN(Shape shape, InferRngShape(inst));
            const Literal counter = TakeRngCounter(current_feeds->rng_counter, static_cast<uint64_t>(RngCounterDelta(shape)));
            VKXLA_ASSIGN_OR_RETURN(result, EvaluateRng(inst, *operands[0], *operands[1], counter));
          }
          break;
        }
        case Opcode::kCholesky: {
          VKXLA_ASSIGN_OR_RETURN(result, EvaluateCholesky(inst, *operands[0]));
          break;
        }
        case Opcode::kTriangularSolve: {
          VKXLA_ASSIGN_OR_RETURN(result, EvaluateTriangularSolve(inst, *operands[0], *operands[1]));
          break;
        }
        case Opcode::kRngBitGenerator: {
          VKXLA_ASSIGN_OR_RETURN(result, EvaluateRngBitGenerator(inst, *operands[0]));
          break;
        }
        case Opcode::kTopK: {
          VKXLA_ASSIGN_OR_RETURN(result, EvaluateTopK(inst, operands));
          break;
        }
        case Opcode::kMap: {
          VKXLA_ASSIGN_OR_RETURN(result, EvaluateMap(inst, operands, ScalarCombiner));
          break;
        }
        case Opcode::kBitcast: {
          // Place the operand by its layout, read the bytes back by the result's.
          VKXLA_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes,
                           ToPhysical(*operands[0], inst.operands[0]->shape.layout_or_default()));
          Shape placed = inst.shape;
          placed.set_layout(inst.shape.layout_or_default());
          VKXLA_ASSIGN_OR_RETURN(result, FromPhysical(bytes.data(), placed));
          break;
        }
        case Opcode::kTuple: {
          std::vector<Literal> elements;
          for (const Literal* o : operands) elements.push_back(*o);
          result = Literal::Tuple(std::move(elements));
          break;
        }
        case Opcode::kGetTupleElement: result = operands[0]->tuple_elements()[inst.tuple_index]; break;
        default: {
          if (IsProcessOpcode(inst.opcode)) {
            std::vector<Literal> leaves;
            for (const Literal* o : operands) leaves.push_back(*o);
            VKXLA_ASSIGN_OR_RETURN(std::vector<Literal> r,
                                   RunProcessOp(inst, std::move(leaves), current_feeds ? current_feeds->process : ProcessContext{}));
            result = inst.shape.IsTuple() ? Literal::Tuple(std::move(r)) : std::move(r.at(0));
            break;
          }
          std::optional<StatusOr<Literal>> r = EvaluateControlFlow(inst, operands, EvaluateComputation, current_feeds);
          if (r) {
            VKXLA_ASSIGN_OR_RETURN(result, std::move(*r));
            break;
          }
          return Unimplemented("reference evaluator: " + std::string(OpcodeName(inst.opcode)) + " " +
                               inst.Describe() + " is not implemented");
        }
      }
    }
    values[owned.get()] = std::move(result);
  }
  Literal out = std::move(values.at(computation.root()));
  return out;
}

StatusOr<Literal> EvaluateModule(const Module& module, const std::vector<Literal>& arguments) {
  EvaluationFeeds feeds;  // empty queues, the rng counter at 0
  return EvaluateModule(module, arguments, feeds);
}

StatusOr<Literal> EvaluateModule(const Module& module, const std::vector<Literal>& arguments, EvaluationFeeds& feeds) {
  EvaluationFeeds* saved = current_feeds;
  current_feeds = &feeds;
  StatusOr<Literal> r = EvaluateComputation(*module.entry(), arguments);
  current_feeds = saved;
  return r;
}

StatusOr<std::vector<Literal>> EvaluateProcesses(const std::vector<const Module*>& modules,
                                                const std::vector<std::vector<Literal>>& arguments, ProcessGrid grid) {
  VKXLA_RETURN_IF_ERROR(CheckProcessGrid(grid));
  const size_t n = static_cast<size_t>(grid.processes());
  if (modules.size() != n || arguments.size() != n)
    return InvalidArgument("a run of " + grid.ToString() + " takes " + std::to_string(n) + " modules and argument lists, got " +
                           std::to_string(modules.size()) + " and " + std::to_string(arguments.size()));
  ProcessRendezvous rendezvous(grid);
  std::vector<std::optional<StatusOr<Literal>>> results(n);
  std::vector<std::thread> threads;
  for (size_t p = 0; p < n; ++p)
    threads.emplace_back([&, p] {
      EvaluationFeeds feeds;
      feeds.process = ProcessContext{grid, static_cast<int64_t>(p), &rendezvous};
      results[p] = EvaluateModule(*modules[p], arguments[p], feeds);
      rendezvous.Leave(static_cast<int64_t>(p), results[p]->status());
    });
  for (std::thread& t : threads) t.join();
  return GatherProcessResults(std::move(results));
}

StatusOr<std::vector<Literal>> GatherProcessResults(std::vector<std::optional<StatusOr<Literal>>> results) {
  // The first error that is not only another process's departure.
  const Status* first = nullptr;
  for (const auto& r : results)
    if (r && !r->ok() && (!first || (first->code() == StatusCode::kAborted && r->status().code() != StatusCode::kAborted)))
      first = &r->status();
  if (first) {
    for (size_t p = 0; p < results.size(); ++p)
      if (&results[p]->status() == first) return Status(first->code(), "process " + std::to_string(p) + ": " + first->message());
  }
  std::vector<Literal> out;
  for (auto& r : results) out.push_back(std::move(**r));
  return out;
}

}  // namespace vkxla
