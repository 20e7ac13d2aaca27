// Whole models from samples/, run on the device and checked against the
// reference evaluator: MobileNet-v2 (width 0.35, 96x96, weights and image
// generated in the graph by tools/models/mobilenet_v2.py), whose 52
// convolutions take every lowering (implicit GEMM for the stem, the 1x1
// matmuls, the direct depthwise kernel) with batch norm folded into their
// epilogues.
#include <gtest/gtest.h>

#include "frontends/module_file.h"
#include "ops/evaluator.h"
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

}  // namespace
}  // namespace vkxla
