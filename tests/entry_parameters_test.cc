// Entry parameters that are tuples or tokens (older TensorFlow dumps pass a
// cluster's arguments as one tuple; XLA's token tests pass a token): the
// device takes the tuple's arrays, with the layouts the signature gives,
// and answers as the reference evaluator does.
#include <gtest/gtest.h>

#include <random>

#include "frontends/hlo_text.h"
#include "ops/evaluator.h"
#include "plan/entry_parameters.h"
#include "runtime/executable.h"
#include "tests/test_util.h"

namespace vkxla {
namespace {

class EntryParameters : public ::testing::Test {
 protected:
  void TearDown() override { ExpectNoValidationMessages(); }
};

// Random values for every array of `shape`, tuples rebuilt, tokens made.
Literal RandomArgument(const Shape& shape, std::mt19937_64& rng) {
  std::vector<Literal> leaves;
  for (const Shape& leaf : ArrayLeafShapes(shape)) leaves.push_back(RandomLiteral(leaf, rng, Opcode::kAdd));
  size_t next = 0;
  StatusOr<Literal> l = LiteralFromArrayLeaves(shape, leaves, next);
  EXPECT_TRUE(l.ok()) << l.status().message();
  return l.ok() ? std::move(*l) : Literal();
}

TEST_F(EntryParameters, TuplesAndTokensRunAsTheReferenceDoes) {
  const std::vector<std::string> modules = {
      // A tuple, read element by element, beside an array parameter.
      "HloModule pair\nENTRY e {\n  p = (f32[4], s32[2,3]) parameter(0)\n  q = f32[4] parameter(1)\n"
      "  a = f32[4] get-tuple-element(p), index=0\n  b = s32[2,3] get-tuple-element(p), index=1\n"
      "  s = f32[4] add(a, q)\n  n = s32[2,3] negate(b)\n  ROOT r = (f32[4], s32[2,3]) tuple(s, n)\n}\n",
      // Nested tuples with the layouts entry_computation_layout gives (a
      // column-major matrix), returned as they came and transformed.
      "HloModule nested, entry_computation_layout={((f32[3,5]{0,1}, (u8[7]{0}, f64[2,2]{1,0})))->(f32[5,3]{1,0}, (u8[7]{0}, f64[2,2]{1,0}))}\n"
      "ENTRY e {\n  p = (f32[3,5], (u8[7], f64[2,2])) parameter(0)\n  m = f32[3,5] get-tuple-element(p), index=0\n"
      "  t = f32[5,3] transpose(m), dimensions={1,0}\n  inner = (u8[7], f64[2,2]) get-tuple-element(p), index=1\n"
      "  ROOT r = (f32[5,3], (u8[7], f64[2,2])) tuple(t, inner)\n}\n",
      // The tuple parameter is a loop's state as it comes (TensorFlow's while clusters).
      "HloModule loop\ncond {\n  s = (s32[], f32[8]) parameter(0)\n  i = s32[] get-tuple-element(s), index=0\n"
      "  k = s32[] constant(3)\n  ROOT lt = pred[] compare(i, k), direction=LT\n}\n"
      "body {\n  s = (s32[], f32[8]) parameter(0)\n  i = s32[] get-tuple-element(s), index=0\n"
      "  x = f32[8] get-tuple-element(s), index=1\n  one = s32[] constant(1)\n  j = s32[] add(i, one)\n"
      "  y = f32[8] multiply(x, x)\n  ROOT n = (s32[], f32[8]) tuple(j, y)\n}\n"
      "ENTRY e {\n  p = (s32[], f32[8]) parameter(0)\n  ROOT w = (s32[], f32[8]) while(p), condition=cond, body=body\n}\n",
      // A token parameter threads effects through and comes back; the array
      // parameter after it is parameter 1.
      "HloModule token\nENTRY e {\n  tok = token[] parameter(0)\n  x = f32[6] parameter(1)\n"
      "  t2 = token[] after-all(tok)\n  ax = f32[6] abs(x)\n  y = f32[6] sqrt(ax)\n  ROOT r = (f32[6], token[]) tuple(y, t2)\n}\n",
      // Only a tuple parameter, returned whole.
      "HloModule whole\nENTRY e {\n  ROOT p = (bf16[5], pred[3]) parameter(0)\n}\n",
  };
  std::mt19937_64 rng(7);
  for (const std::string& text : modules) {
    SCOPED_TRACE(text);
    auto m = ParseAndVerifyHlo(text);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    std::vector<Literal> args;
    for (const Instruction* p : (*m)->entry()->parameters()) args.push_back(RandomArgument(p->shape, rng));
    auto want = EvaluateModule(**m, args);
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    auto got = CompileAndRun(**m, args);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(got->shape().ToString(false), want->shape().ToString(false));
    EXPECT_EQ(got->ValuesToString(), want->ValuesToString());
  }
}

// The plan's parameters are the arrays in order, numbered again, with the
// signature's layouts; a module of arrays alone is left as it is.
TEST_F(EntryParameters, FlatteningNumbersTheArraysInOrder) {
  auto m = ParseAndVerifyHlo(
      "HloModule m, entry_computation_layout={(f32[2]{0}, token[], (s32[3,4]{0,1}, (u8[1]{0})))->s32[3,4]{1,0}}\n"
      "ENTRY e {\n  a = f32[2] parameter(0)\n  t = token[] parameter(1)\n  p = (s32[3,4], (u8[1])) parameter(2)\n"
      "  ROOT g = s32[3,4] get-tuple-element(p), index=0\n}\n");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  auto flat = FlattenEntryParameters(**m);
  ASSERT_TRUE(flat.ok()) << flat.status().ToString();
  ASSERT_NE(*flat, nullptr);
  const ProgramShape signature = (*flat)->EntryProgramShape();
  ASSERT_EQ(signature.parameters.size(), 3u);
  EXPECT_EQ(signature.parameters[0].ToString(), "f32[2]{0}");
  EXPECT_EQ(signature.parameters[1].ToString(), "s32[3,4]{0,1}");
  EXPECT_EQ(signature.parameters[2].ToString(), "u8[1]{0}");
  EXPECT_EQ(signature.result.ToString(), "s32[3,4]{1,0}");
  const std::vector<Instruction*> params = (*flat)->entry()->parameters();
  ASSERT_EQ(params.size(), 3u);
  for (size_t i = 0; i < params.size(); ++i) EXPECT_EQ(params[i]->parameter_number, static_cast<int64_t>(i));
  EXPECT_EQ(params[0]->name, "a");

  auto arrays = ParseAndVerifyHlo("ENTRY e {\n  ROOT a = f32[2] parameter(0)\n}\n");
  ASSERT_TRUE(arrays.ok());
  auto same = FlattenEntryParameters(**arrays);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(*same, nullptr);
}

// A tuple argument of the wrong shape is an error naming the parameter.
TEST_F(EntryParameters, ArgumentsThatDoNotFitAreErrors) {
  auto m = ParseAndVerifyHlo("ENTRY e {\n  ROOT p = (f32[2], s32[]) parameter(0)\n}\n");
  ASSERT_TRUE(m.ok());
  std::vector<Literal> swapped;
  swapped.push_back(Literal::Tuple({Literal(Shape(ElementType::kS32, {})), Literal(Shape(ElementType::kF32, {2}))}));
  auto got = CompileAndRun(**m, swapped);
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("(f32[2], s32[])"), std::string::npos) << got.status().message();
}

}  // namespace
}  // namespace vkxla
