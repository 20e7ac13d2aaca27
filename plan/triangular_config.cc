#include "plan/triangular_config.h"

#include "ops/cholesky.h"
#include "ops/triangular_solve.h"
#include "plan/linalg_expansion.h"

namespace vkxla {

StatusOr<TriangularConfig> ChooseTriangularConfig(const Instruction& inst) {
  TriangularConfig c;
  const bool cholesky = inst.opcode == Opcode::kCholesky;
  VKXLA_RETURN_IF_ERROR(cholesky ? InferCholeskyShape(inst).status() : InferTriangularSolveShape(inst).status());
  const Shape& a = inst.operands[0]->shape;
  c.order = a.dims().back();
  const int64_t leaf = cholesky ? kCholeskyLeafOrder : kTriangularSolveLeafOrder;
  if (c.order > leaf)
    return Internal(inst.Describe() + ": a block of order " + std::to_string(c.order) + " reached the kernel; the expansion splits above " +
                    std::to_string(leaf));
  if (cholesky) {
    c.systems = MatrixBatches(a);
  } else {
    VKXLA_ASSIGN_OR_RETURN(TriangularSolveOptions o, ReadTriangularSolveOptions(inst));
    const Shape& b = inst.operands[1]->shape;
    c.lines = b.dims()[b.rank() - (o.left_side ? 1 : 2)];
    c.systems = MatrixBatches(b) * c.lines;
  }
  if (inst.shape.element_count() == 0) c.systems = 0;  // nothing to solve: no dispatch (empty arrays have no buffer)
  return c;
}

}  // namespace vkxla
