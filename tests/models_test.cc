// Whole models from samples/, run on the device and checked against the
// reference evaluator: MobileNet-v2 (width 0.35, 96x96, weights and image
// generated in the graph by tools/models/mobilenet_v2.py), whose 52
// convolutions take every lowering (implicit GEMM for the stem, the 1x1
// matmuls, the direct depthwise kernel) with batch norm folded into their
// epilogues; a BERT encoder layer (tools/models/transformer_encoder.py),
// its weights random here.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "frontends/module_file.h"
#include "ops/evaluator.h"
#include "runtime/executable.h"
#include "tests/test_util.h"

namespace vkxla {
namespace {

TEST(Models, MobileNetV2SampleMatchesTheReference) {
  auto module = LoadModuleFile(std::string(VKXLA_SOURCE_DIR) + "/samples/mobilenet_v2.hlo");
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  auto want = EvaluateModule(**module, {});
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  auto got = CompileAndRun(**module, {});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_TRUE(got->shape().IsTuple() && got->tuple_elements().size() == 2);
  // The five highest logits (they differ in the third digit) and
  // their classes.
  const Literal& p = got->tuple_elements()[0];
  const Literal& p_want = want->tuple_elements()[0];
  for (int64_t i = 0; i < 5; ++i) {
    EXPECT_NEAR(p.Get(i).re, p_want.Get(i).re, 1e-5) << "logit " << i;
    EXPECT_EQ(got->tuple_elements()[1].Get(i).s, want->tuple_elements()[1].Get(i).s) << "class " << i;
  }
  EXPECT_GT(p.Get(0).re, p.Get(4).re);
  ExpectNoValidationMessages();
}

// The encoder layer as eleven kernels: the eight matmuls with their
// biases, the residual adds and the gelu in their epilogues, the softmax
// and the two layer norms as row kernels. Its rows against the reference within
// the rounding of sums over 1024 products.
TEST(Models, TransformerEncoderSampleMatchesTheReference) {
  auto module = LoadModuleFile(std::string(VKXLA_SOURCE_DIR) + "/samples/transformer_encoder.hlo");
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  std::mt19937_64 rng(12);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<Literal> args;
  for (const Instruction* p : (*module)->entry()->parameters()) {
    Literal l(p->shape);
    // Weights scaled by 1/sqrt(fan-in), as initialisers do, so activations stay near 1.
    const double scale = p->name[0] == 'w' ? 1.0 / std::sqrt(static_cast<double>(p->shape.dim(0))) : p->name == "x" ? 1.0 : 0.1;
    const bool gain = p->name.size() > 2 && p->name.substr(p->name.size() - 2) == "_g";
    for (int64_t i = 0; i < l.element_count(); ++i)
      l.Set(i, Scalar::Float(ElementType::kF32, (gain ? 1.0 : 0.0) + scale * normal(rng)));
    args.push_back(std::move(l));
  }
  auto want = EvaluateModule(**module, args);
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  auto exe = Executable::Compile(**module, TestDevice());
  ASSERT_TRUE(exe.ok()) << exe.status().ToString();
  // Eleven groups whatever the device (a GPU's small products may add
  // split sums): the eight matmuls (q, k, v, the scores, the context, the
  // output projection and the two of the feed-forward block) and the three
  // row kernels, nothing between.
  int matmuls = 0, rows = 0;
  for (const FusionGroup& g : (*exe)->program().groups) {
    matmuls += g.kind == KernelKind::kMatmul;
    rows += g.kind == KernelKind::kRow;
  }
  EXPECT_EQ(matmuls, 8);
  EXPECT_EQ(rows, 3);
  EXPECT_EQ((*exe)->program().groups.size(), 11u);
  if (TestDevice().target().cpu) {
    EXPECT_EQ((*exe)->kernel_count(), 11);
  }
  auto got = (*exe)->Run(args);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  double worst = 0;
  for (int64_t i = 0; i < want->element_count(); ++i) worst = std::max(worst, std::fabs(got->Get(i).re - want->Get(i).re));
  EXPECT_LT(worst, 1e-4);
  ExpectNoValidationMessages();
}

}  // namespace
}  // namespace vkxla
