// The blocked Cholesky and TriangularSolve without a device: what the
// expansion leaves (only blocks of at most the leaf order, as kernels of
// the triangular kind), that its matmuls carry the flops (the plain
// algorithm's for the solve, within 1.2x for Cholesky, whose trailing updates
// compute only the lower triangle the factor reads), huge orders refused,
// and that small ops stay whole.
#include <gtest/gtest.h>

#include "frontends/hlo_text.h"
#include "ops/dot.h"
#include "plan/linalg_expansion.h"
#include "plan/planner.h"
#include "plan/target_profiles.h"

namespace vkxla {
namespace {

std::unique_ptr<Module> Parse(const std::string& entry) {
  auto m = ParseAndVerifyHlo("HloModule l\n\n" + entry);
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return m.ok() ? std::move(m).value() : nullptr;
}

struct Census {
  int leaves = 0, dots = 0;
  int64_t largest_leaf = 0;
  double dot_flops = 0;  // multiply-adds
};

Census Count(const Module& m) {
  Census c;
  for (const auto& inst : m.entry()->instructions()) {
    if (inst->opcode == Opcode::kCholesky || inst->opcode == Opcode::kTriangularSolve) {
      ++c.leaves;
      c.largest_leaf = std::max(c.largest_leaf, inst->operands[0]->shape.dims().back());
    }
    if (inst->opcode == Opcode::kDot) {
      ++c.dots;
      StatusOr<DotPlan> p = PlanDot(*inst);
      EXPECT_TRUE(p.ok()) << p.status().ToString();
      if (p.ok()) c.dot_flops += static_cast<double>(p->batch) * p->m * p->n * p->k;
    }
  }
  return c;
}

TEST(LinalgPlan, SolveIsMatmulsAndLeaves) {
  for (const char* options : {"left_side=true, lower=true, transpose_a=NO_TRANSPOSE",
                              "left_side=false, lower=false, transpose_a=ADJOINT",
                              "left_side=true, lower=false, unit_diagonal=true, transpose_a=TRANSPOSE"}) {
    auto m = Parse(std::string("ENTRY main {\n  a = c64[512,512] parameter(0)\n  b = c64[512,512] parameter(1)\n"
                               "  ROOT x = c64[512,512] triangular-solve(a, b), ") + options + "\n}\n");
    ASSERT_TRUE(m);
    StatusOr<std::shared_ptr<const Module>> e = ExpandLinearAlgebra(*m);
    ASSERT_TRUE(e.ok() && *e) << e.status().ToString();
    const Census c = Count(**e);
    EXPECT_EQ(c.leaves, 512 / kTriangularSolveLeafOrder) << options;
    EXPECT_LE(c.largest_leaf, kTriangularSolveLeafOrder);
    // m^2 k / 2 multiply-adds, less the leaves' share.
    const double leaf_part = 512.0 * kTriangularSolveLeafOrder * 512 / 2;
    EXPECT_DOUBLE_EQ(c.dot_flops, 512.0 * 512 * 512 / 2 - leaf_part) << options;
    EXPECT_EQ((*e)->entry()->root()->shape, m->entry()->root()->shape);
    StatusOr<Program> p = PlanModule(*m, LavapipeTarget());
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    int triangular = 0;
    for (const FusionGroup& g : p->groups) triangular += g.kind == KernelKind::kTriangular;
    EXPECT_EQ(triangular, c.leaves) << options;
  }
}

TEST(LinalgPlan, CholeskyIsMatmulsAndLeaves) {
  auto m = Parse("ENTRY main {\n  a = f32[2,256,256]{1,2,0} parameter(0)\n  ROOT l = f32[2,256,256]{1,2,0} cholesky(a), lower=false\n}\n");
  ASSERT_TRUE(m);
  StatusOr<std::shared_ptr<const Module>> e = ExpandLinearAlgebra(*m);
  ASSERT_TRUE(e.ok() && *e) << e.status().ToString();
  const Census c = Count(**e);
  EXPECT_LE(c.largest_leaf, kCholeskyLeafOrder);
  EXPECT_EQ((*e)->entry()->root()->shape, m->entry()->root()->shape);
  StatusOr<Program> p = PlanModule(*m, DesktopGpuTarget());
  ASSERT_TRUE(p.ok()) << p.status().ToString();
}

// The trailing updates compute only what the factor reads: near the plain
// algorithm's n^3/6 multiply-adds, not the 1.5x of square updates.
TEST(LinalgPlan, CholeskyFlopsNearThePlainAlgorithms) {
  auto m = Parse("ENTRY main {\n  a = f32[1024,1024] parameter(0)\n  ROOT l = f32[1024,1024] cholesky(a), lower=true\n}\n");
  ASSERT_TRUE(m);
  StatusOr<std::shared_ptr<const Module>> e = ExpandLinearAlgebra(*m);
  ASSERT_TRUE(e.ok() && *e) << e.status().ToString();
  const double n = 1024, plain = n * n * n / 6;
  const Census c = Count(**e);
  EXPECT_GT(c.dot_flops, 0.9 * plain);
  EXPECT_LT(c.dot_flops, 1.2 * plain) << c.dot_flops / plain;
}

TEST(LinalgPlan, SmallOpsStayWhole) {
  auto m = Parse("ENTRY main {\n  a = f64[3,32,32] parameter(0)\n  b = f64[3,7,32] parameter(1)\n"
                 "  l = f64[3,32,32] cholesky(a), lower=true\n"
                 "  ROOT x = f64[3,7,32] triangular-solve(l, b), left_side=false, lower=true, transpose_a=ADJOINT\n}\n");
  ASSERT_TRUE(m);
  StatusOr<std::shared_ptr<const Module>> e = ExpandLinearAlgebra(*m);
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_FALSE(*e);
  StatusOr<Program> p = PlanModule(*m, LavapipeTarget());
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  ASSERT_EQ(p->groups.size(), 2u);
  const auto& solve = std::get<TriangularConfig>(p->groups[1].config);
  EXPECT_EQ(solve.systems, 3 * 7);
  EXPECT_EQ(std::get<TriangularConfig>(p->groups[0].config).systems, 3);
}

// A huge order is an error naming the op and the shape, before any expansion.
TEST(LinalgPlan, HugeOrdersAreClearErrors) {
  auto m = Parse("ENTRY main {\n  a = f32[100000,100000] parameter(0)\n  ROOT l = f32[100000,100000] cholesky(a), lower=true\n}\n");
  ASSERT_TRUE(m);
  StatusOr<Program> p = PlanModule(*m, LavapipeTarget());
  ASSERT_FALSE(p.ok());
  for (const char* word : {"cholesky %l", "f32[100000,100000]", "65536"})
    EXPECT_NE(p.status().message().find(word), std::string::npos) << p.status().ToString();
}

}  // namespace
}  // namespace vkxla
