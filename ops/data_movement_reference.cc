#include "ops/data_movement_reference.h"

#include <cstring>
#include <functional>

#include "ops/slice_and_padding.h"

namespace vkxla {

bool IsDataMovement(Opcode op) {
  return op == Opcode::kReshape || op == Opcode::kTranspose || op == Opcode::kReverse || op == Opcode::kSlice ||
         op == Opcode::kConcatenate || op == Opcode::kPad;
}

namespace {

// Where a result element comes from: operand `operand` at `index`, or the
// padding value when operand < 0.
struct Source {
  int operand = 0;
  std::vector<int64_t> index;
};

}  // namespace

StatusOr<Literal> EvaluateDataMovement(const Instruction& inst, const std::vector<const Literal*>& operands) {
  const Shape& out_shape = inst.shape;
  const Shape& x = operands[0]->shape();
  std::function<Source(const std::vector<int64_t>&)> source;
  std::vector<SliceDimension> slice;
  std::vector<PaddingDimension> padding;
  switch (inst.opcode) {
    case Opcode::kReshape:
      source = [&](const std::vector<int64_t>& i) {
        return Source{0, MultiIndex(x.dims(), LinearIndex(out_shape.dims(), i))};
      };
      break;
    case Opcode::kTranspose:
      source = [&](const std::vector<int64_t>& i) {
        Source s{0, std::vector<int64_t>(x.rank())};
        for (size_t d = 0; d < i.size(); ++d) s.index[(*inst.dimensions)[d]] = i[d];
        return s;
      };
      break;
    case Opcode::kReverse:
      source = [&](const std::vector<int64_t>& i) {
        Source s{0, i};
        for (int64_t d : *inst.dimensions) s.index[d] = x.dim(d) - 1 - i[d];
        return s;
      };
      break;
    case Opcode::kSlice: {
      VKXLA_ASSIGN_OR_RETURN(slice, SliceOf(inst));
      source = [&](const std::vector<int64_t>& i) {
        Source s{0, i};
        for (size_t d = 0; d < i.size(); ++d) s.index[d] = slice[d].start + i[d] * slice[d].stride;
        return s;
      };
      break;
    }
    case Opcode::kConcatenate:
      source = [&](const std::vector<int64_t>& i) {
        const int64_t dim = (*inst.dimensions)[0];
        Source s{0, i};
        while (s.index[dim] >= operands[s.operand]->shape().dim(dim)) s.index[dim] -= operands[s.operand++]->shape().dim(dim);
        return s;
      };
      break;
    case Opcode::kPad: {
      VKXLA_ASSIGN_OR_RETURN(padding, PaddingOf(inst));
      source = [&](const std::vector<int64_t>& i) {
        Source s{0, i};
        for (size_t d = 0; d < i.size(); ++d) {
          // Interior padding first, then edges (negative edges crop).
          const int64_t t = i[d] - padding[d].low, step = padding[d].interior + 1;
          if (t < 0 || t % step != 0 || t / step >= x.dim(d)) return Source{-1, {}};
          s.index[d] = t / step;
        }
        return s;
      };
      break;
    }
    default:
      return Unimplemented(std::string(OpcodeName(inst.opcode)) + " is not a data-movement op");
  }
  Literal out(Shape(out_shape.element_type(), out_shape.dims()));
  const int w = ByteWidth(out_shape.element_type());
  std::vector<int64_t> index(out_shape.rank(), 0);
  for (int64_t i = 0; i < out.element_count(); ++i) {
    const Source s = source(index);
    const Literal& from = s.operand < 0 ? *operands[1] : *operands[s.operand];
    const int64_t at = s.operand < 0 ? 0 : LinearIndex(from.shape().dims(), s.index);
    std::memcpy(out.bytes().data() + i * w, from.bytes().data() + at * w, w);
    for (int64_t d = out_shape.rank() - 1; d >= 0; --d) {
      if (++index[d] < out_shape.dim(d)) break;
      index[d] = 0;
    }
  }
  return out;
}

}  // namespace vkxla
