// Every elementwise op on every element type it accepts, in two layouts:
// random inputs (with the special values mixed in) run on the Vulkan device
// and compared against the reference evaluator. Types the device (or
// VKXLA_MASK) lacks must fail with an error naming the feature.
#include <gtest/gtest.h>

#include <limits>

#include <cmath>
#include <cstring>
#include <random>

#include "frontends/hlo_text.h"
#include "ir/hlo_parser.h"
#include "frontends/xla_builder.h"
#include "ir/float_formats.h"
#include "ops/evaluator.h"
#include "ops/op_traits.h"
#include "ops/shape_inference.h"
#include "runtime/executable.h"
#include "runtime/vulkan_context.h"
#include "tests/test_util.h"

namespace vkxla {
namespace {

// The layouts an op runs in: every operand and the result in one layout, or
// each in its own (tiled ones included).
struct Placement {
  std::vector<Layout> operands;  // cycled when there are more operands
  Layout result;
  std::string ToString() const {
    std::string s;
    for (const Layout& l : operands) s += l.ToString() + " ";
    return s + "-> " + result.ToString();
  }
};

Placement Uniform(const Layout& l) { return {{l}, l}; }

// s4/u4/f4 operands and results are packed two to a byte (E(4)) in tiled
// placements, so the packed path runs under every op too.
Layout ForType(Layout l, ElementType t) {
  if (BitWidth(t) == 4 && !l.tiles.empty()) l.element_size_in_bits = 4;
  return l;
}

// Builds `op` over operands of `types` (shape [5,7] in the given layouts),
// runs it on the device and compares with the reference.
void CheckOp(Opcode op, const std::vector<ElementType>& types, const Placement& placement, uint64_t seed,
             ComparisonType ctype = ComparisonType::kDefault, ElementType convert_to = ElementType::kInvalid) {
  XlaBuilder b("op_test");
  std::vector<XlaOp> params;
  std::vector<Literal> args;
  std::mt19937_64 rng(seed);
  for (size_t i = 0; i < types.size(); ++i) {
    Shape s(types[i], {5, 7});
    s.set_layout(ForType(placement.operands[i % placement.operands.size()], types[i]));
    params.push_back(b.Parameter(static_cast<int64_t>(i), s, "p" + std::to_string(i)));
    args.push_back(RandomLiteral(s, rng, op));
  }
  XlaOp r;
  if (op == Opcode::kConvert) r = b.ConvertElementType(params[0], convert_to);
  else if (op == Opcode::kBitcastConvert) r = b.BitcastConvertType(params[0], convert_to);
  else if (op == Opcode::kReducePrecision) r = b.ReducePrecision(params[0], 5, 3);
  else if (op == Opcode::kCompare) r = b.Compare(params[0], params[1], ComparisonDirection::kLt, {}, ctype);
  else if (op == Opcode::kSelect) r = b.Select(params[0], params[1], params[2]);
  else if (op == Opcode::kClamp) r = b.Clamp(params[0], params[1], params[2]);
  else if (types.size() == 1) r = b.Unary(op, params[0]);
  else r = b.Binary(op, params[0], params[1]);
  auto module = b.Build(r);
  const std::string what = std::string(OpcodeName(op)) + "(" + std::string(ElementTypeName(types[0])) + ") layouts " +
                           placement.ToString() + (convert_to != ElementType::kInvalid ? " -> " + std::string(ElementTypeName(convert_to)) : "");
  ASSERT_TRUE(module.ok()) << what << ": " << module.status().ToString();
  Shape& result = (*module)->entry()->root()->shape;
  result.set_layout(ForType(placement.result, result.element_type()));
  auto want = EvaluateModule(**module, args);
  ASSERT_TRUE(want.ok()) << what << ": " << want.status().ToString();
  auto exe = Executable::Compile(**module, TestDevice());
  ASSERT_TRUE(exe.ok()) << what << ": " << exe.status().ToString();
  auto got = (*exe)->Run(args);
  ASSERT_TRUE(got.ok()) << what << ": " << got.status().ToString();
  ExpectClose(*got, *want, op, what);
}

bool Accepts(Opcode op, const std::vector<ElementType>& types) {
  Instruction inst;
  inst.opcode = op;
  std::vector<std::unique_ptr<Instruction>> operands;
  for (ElementType t : types) {
    operands.push_back(std::make_unique<Instruction>());
    operands.back()->shape = Shape(t, {2});
    inst.operands.push_back(operands.back().get());
  }
  inst.exponent_bits = 5;
  inst.mantissa_bits = 3;
  return InferShape(inst).ok();
}

Layout L(const std::string& text) {
  auto shape = ParseShape("f32[5,7]" + text);
  EXPECT_TRUE(shape.ok()) << shape.status().ToString();
  return shape->layout_or_default();
}

const Placement kRowMajor = Uniform(L("{1,0}"));
const Placement kColumnMajor = Uniform(L("{0,1}"));
// Operands and result each in a different tiled layout: one fused kernel
// indexes all of them directly.
const Placement kMixedTiled = {{L("{1,0:T(2,4)}"), L("{0,1:T(4,2)(2,1)}"), L("{0,1:T(*,4)}")}, L("{1,0:T(4,2)}")};

class ElementwiseOps : public ::testing::TestWithParam<Opcode> {
 protected:
  void TearDown() override { ExpectNoValidationMessages(); }
};

TEST_P(ElementwiseOps, RandomInputsMatchReferenceOnEveryType) {
  const Opcode op = GetParam();
  int checked = 0;
  for (ElementType t : kAllTypes) {
    std::vector<ElementType> types;
    if (IsElementwiseUnary(op)) types = {t};
    else if (op == Opcode::kSelect) types = {ElementType::kPred, t, t};
    else if (op == Opcode::kClamp) types = {t, t, t};
    else types = {t, t};
    if (!Accepts(op, types)) continue;
    ++checked;
    uint64_t seed = static_cast<uint64_t>(op) * 131 + static_cast<uint64_t>(t);
    CheckOp(op, types, kRowMajor, seed);
    CheckOp(op, types, kColumnMajor, seed + 1);
    CheckOp(op, types, kMixedTiled, seed + 2);
  }
  EXPECT_GT(checked, 0) << "no element type accepted for " << OpcodeName(op);
}

const Opcode kOps[] = {
    Opcode::kAbs, Opcode::kAdd, Opcode::kAnd, Opcode::kAtan2, Opcode::kCbrt, Opcode::kCeil, Opcode::kClz,
    Opcode::kComplex, Opcode::kCos, Opcode::kCosh, Opcode::kDivide, Opcode::kErf, Opcode::kExp, Opcode::kExpm1,
    Opcode::kFloor, Opcode::kImag, Opcode::kIsFinite, Opcode::kLog, Opcode::kLog1p, Opcode::kLogistic,
    Opcode::kMaximum, Opcode::kMinimum, Opcode::kMultiply, Opcode::kNegate, Opcode::kNot, Opcode::kOr,
    Opcode::kPopulationCount, Opcode::kPower, Opcode::kReal, Opcode::kRemainder, Opcode::kRoundNearestAfz,
    Opcode::kRoundNearestEven, Opcode::kRsqrt, Opcode::kSelect, Opcode::kShiftLeft, Opcode::kShiftRightArithmetic,
    Opcode::kShiftRightLogical, Opcode::kSign, Opcode::kSin, Opcode::kSqrt, Opcode::kSubtract, Opcode::kTan,
    Opcode::kTanh, Opcode::kXor, Opcode::kClamp, Opcode::kReducePrecision};

INSTANTIATE_TEST_SUITE_P(All, ElementwiseOps, ::testing::ValuesIn(kOps),
                         [](const auto& info) {
                           std::string n(OpcodeName(info.param));
                           for (char& c : n) if (c == '-') c = '_';
                           return n;
                         });

// sin, cos and tan of the 1-D array x against the reference evaluator.
void ExpectTrigonometryMatchesTheReference(const Literal& x) {
  const std::string type = std::string(ElementTypeName(x.shape().element_type())) + "[" + std::to_string(x.element_count()) + "]";
  for (const char* op : {"sine", "cosine", "tan"}) {
    SCOPED_TRACE(op);
    auto m = ParseOrFail("HloModule trig\nENTRY e {\n  x = " + type + " parameter(0)\n  ROOT y = " + type + " " + op + "(x)\n}\n");
    ASSERT_TRUE(m);
    auto want = EvaluateModule(*m, {x});
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    auto got = CompileAndRun(*m, {x});
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ExpectClose(*got, *want, Opcode::kSin, op);
  }
}

// sin, cos and tan of arguments far from zero: the reduction by pi/2 is
// exact (Payne-Hanek), as XLA's CPU and GPU results are; a Cody-Waite
// reduction alone returned 0 or +-1 for f32 arguments near 10^7.
TEST(Trigonometry, HugeArgumentsAreReducedExactly) {
  for (ElementType t : {ElementType::kF32, ElementType::kF64, ElementType::kF16, ElementType::kBF16}) {
    const double top = t == ElementType::kF64 ? 300 : t == ElementType::kF16 ? 4.5 : 38;
    std::mt19937_64 rng(static_cast<uint64_t>(t));
    std::uniform_real_distribution<double> exponent(0, top);
    Literal x(Shape(t, {512}));
    for (int64_t i = 0; i < 512; ++i) {
      const double sign = (i % 2) ? -1 : 1;
      // The first few: integers near 2^k where k*pi/2 lands close to them.
      const double v = i < 8 ? std::ldexp(1.0, 20 + 3 * static_cast<int>(i)) + 1 : std::pow(10.0, exponent(rng));
      x.Set(i, Scalar::Float(t, sign * std::min(v, t == ElementType::kF16 ? 65504.0 : v)));
    }
    SCOPED_TRACE(ElementTypeName(t));
    ExpectTrigonometryMatchesTheReference(x);
  }
}

// Every f32 binade of the large-argument reduction (|x| from 2^19, where
// the double Cody-Waite step stops, to the top of the range), 32 random
// mantissas each, positive and negative.
TEST(Trigonometry, EveryF32BinadeOfTheLargeArgumentPath) {
  std::mt19937_64 rng(19);
  std::vector<float> xs;
  for (int e = 19; e <= 127; ++e)
    for (int k = 0; k < 32; ++k) {
      const uint32_t bits = (static_cast<uint32_t>(e + 127) << 23) | static_cast<uint32_t>(rng() & 0x7FFFFF) |
                            (k % 2 ? 0x80000000u : 0u);
      float v;
      std::memcpy(&v, &bits, sizeof v);
      xs.push_back(v);
    }
  Literal x(Shape(ElementType::kF32, {static_cast<int64_t>(xs.size())}));
  for (size_t i = 0; i < xs.size(); ++i) x.Set(static_cast<int64_t>(i), Scalar::Float(ElementType::kF32, xs[i]));
  ExpectTrigonometryMatchesTheReference(x);
}

// f32 erf (fixed polynomials, shaders/real_math.glsl) over 65,536 evenly
// spaced bit patterns of each sign from the smallest normal to 4, where it
// rounds to 1: within 1.5 ULP of the host's erf, tighter than the
// transcendental tolerance.
TEST(Erf, F32WithinOneAndAHalfUlpOverADenseSweep) {
  const uint32_t lo = 0x00800000u, hi = 0x40800000u, n = 1u << 16;
  Literal x(Shape(ElementType::kF32, {2 * int64_t{n}}));
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t bits = lo + static_cast<uint32_t>((uint64_t{hi - lo} * i) / n);
    float v;
    std::memcpy(&v, &bits, sizeof v);
    x.Set(2 * int64_t{i}, Scalar::Float(ElementType::kF32, v));
    x.Set(2 * int64_t{i} + 1, Scalar::Float(ElementType::kF32, -v));
  }
  const std::string type = "f32[" + std::to_string(2 * n) + "]";
  auto m = ParseOrFail("HloModule erf\nENTRY e {\n  x = " + type + " parameter(0)\n  ROOT y = " + type + " erf(x)\n}\n");
  ASSERT_TRUE(m);
  auto got = CompileAndRun(*m, {x});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  double worst = 0, worst_at = 0;
  for (int64_t i = 0; i < 2 * int64_t{n}; ++i) {
    const double v = x.Get(i).re, want = static_cast<double>(std::erf(static_cast<long double>(v)));
    const double ulp = UlpDistance(got->Get(i).re, want, ElementType::kF32);
    if (ulp > worst) worst = ulp, worst_at = v;
  }
  EXPECT_LE(worst, 1.5) << "worst at erf(" << worst_at << ")";
}

// The real math library against the reference on random bit patterns: every
// exponent (a quarter of them at the subnormal end), zeros, infinities and
// NaNs over each other, for f32 and f64, with the driver's own correctly
// rounded division and square root (TargetFeatures::exact_div_sqrt, where
// it has them) and with the corrected ones. It found quotients of far
// exponents coming out NaN, fmod stopping short for tiny divisors, and the
// driver's f64 roundEven and trunc leaving large values unrounded.
TEST(RealMath, RandomBitPatternsMatchTheReference) {
  std::vector<TargetFeatures> targets = {TestDevice().target()};
  if (targets[0].exact_div_sqrt) {
    targets.push_back(targets[0]);
    targets.back().exact_div_sqrt = false;
  }
  const std::vector<std::pair<std::string, Opcode>> ops = {
      {"exponential", Opcode::kExp}, {"exponential-minus-one", Opcode::kExpm1}, {"log", Opcode::kLog},
      {"log-plus-one", Opcode::kLog1p}, {"sine", Opcode::kSin}, {"cosine", Opcode::kCos}, {"tan", Opcode::kTan},
      {"tanh", Opcode::kTanh}, {"sqrt", Opcode::kSqrt}, {"rsqrt", Opcode::kRsqrt}, {"cbrt", Opcode::kCbrt},
      {"logistic", Opcode::kLogistic}, {"erf", Opcode::kErf}, {"round-nearest-afz", Opcode::kRoundNearestAfz},
      {"round-nearest-even", Opcode::kRoundNearestEven}, {"floor", Opcode::kFloor}, {"ceil", Opcode::kCeil},
      {"sign", Opcode::kSign}, {"divide", Opcode::kDivide}, {"remainder", Opcode::kRemainder},
      {"power", Opcode::kPower}, {"atan2", Opcode::kAtan2}};
  for (ElementType t : {ElementType::kF32, ElementType::kF64}) {
    const int64_t n = 1 << 12;
    std::mt19937_64 rng(static_cast<uint64_t>(t) + 13);
    std::vector<Literal> args;
    for (int operand = 0; operand < 2; ++operand) args.push_back(RandomBitPatterns(t, n, rng, 4));
    const double specials[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1.0, -0.0, INFINITY};
    for (int64_t i = 0; i < 8; ++i) {
      args[0].Set(i, Scalar::Float(t, specials[i]));
      args[1].Set(i, Scalar::Float(t, specials[(i * 3 + 1) % 8]));
    }
    const std::string type = std::string(ElementTypeName(t)) + "[" + std::to_string(n) + "]";
    for (const auto& [name, op] : ops) {
      const std::string what = name + " " + std::string(ElementTypeName(t));
      const bool binary = !IsElementwiseUnary(op);
      auto m = ParseOrFail("HloModule bits\nENTRY e {\n  x = " + type + " parameter(0)\n  y = " + type +
                           " parameter(1)\n  ROOT r = " + type + " " + name + (binary ? "(x, y)" : "(x)") + "\n}\n");
      ASSERT_TRUE(m);
      auto want = EvaluateModule(*m, args);
      ASSERT_TRUE(want.ok()) << what << ": " << want.status().ToString();
      for (const TargetFeatures& target : targets) {
        SCOPED_TRACE(target.exact_div_sqrt ? "the driver's own division" : "corrected division");
        auto exe = Executable::Compile(*m, TestDevice(), target);
        ASSERT_TRUE(exe.ok()) << what << ": " << exe.status().ToString();
        auto got = (*exe)->Run(args);
        ASSERT_TRUE(got.ok()) << what << ": " << got.status().ToString();
        // Where the device flushes f32 subnormals: the reference on the
        // flushed operands passes too.
        auto want_flushed = EvaluateOnFlushedArguments(target, *m, args, *want);
        ASSERT_TRUE(want_flushed.ok()) << what << ": " << want_flushed.status().ToString();
        ExpectCloseOnTarget(target, *got, *want, *want_flushed, op, what);
      }
    }
  }
}

// Every conversion from random bit patterns of each real type (every
// exponent, NaNs and infinities of the floats; the full range of the
// integers): the other test's operands are small. It found f64 values below
// f32's range becoming NaN on their way to f16, bf16 and the f8 types, and
// floats from 2^63 up saturating on their way to u64.
TEST(Convert, RandomBitPatternsToEveryType) {
  for (ElementType from : kAllTypes) {
    if (IsComplex(from) || from == ElementType::kPred) continue;
    const int64_t n = 1 << 11;
    std::mt19937_64 rng(static_cast<uint64_t>(from) + 21);
    const Literal x = RandomBitPatterns(from, n, rng);
    for (ElementType to : kAllTypes) {
      if (to == from) continue;
      const std::string what = std::string(ElementTypeName(from)) + " -> " + std::string(ElementTypeName(to));
      XlaBuilder b("convert");
      auto module = b.Build(b.ConvertElementType(b.Parameter(0, Shape(from, {n}), "x"), to));
      ASSERT_TRUE(module.ok()) << what << ": " << module.status().ToString();
      auto want = EvaluateModule(**module, {x});
      ASSERT_TRUE(want.ok()) << what << ": " << want.status().ToString();
      auto got = CompileAndRun(**module, {x});
      ASSERT_TRUE(got.ok()) << what << ": " << got.status().ToString();
      // Where the device flushes f32 subnormals: the conversion of the
      // value as the device holds it, an f32 with its subnormals flushed
      // (f8e8m0fnu's 2^-127 has no zero of its own to flush to).
      const TargetFeatures& target = TestDevice().target();
      StatusOr<Literal> want_flushed = *want;
      if (!target.f32_subnormals_kept && IsFloat(from) && from != ElementType::kF64) {
        XlaBuilder f("convert_f32");
        auto via_f32 = f.Build(f.ConvertElementType(f.Parameter(0, Shape(ElementType::kF32, {n}), "x"), to));
        ASSERT_TRUE(via_f32.ok()) << what << ": " << via_f32.status().ToString();
        Literal held(Shape(ElementType::kF32, {n}));
        for (int64_t i = 0; i < n; ++i) held.Set(i, Scalar::Float(ElementType::kF32, x.Get(i).re));
        want_flushed = EvaluateModule(**via_f32, {FlushedWhereTheTargetFlushes(target, held)});
      }
      ASSERT_TRUE(want_flushed.ok()) << what << ": " << want_flushed.status().ToString();
      ExpectCloseOnTarget(target, *got, *want, *want_flushed, Opcode::kConvert, what);
    }
  }
}

// Complex functions with components over the whole exponent range of their
// parts (the other tests draw them within +-4). It found sqrt's |x| + |z|,
// tanh's doubled argument and log1p's a(2 + a) + b^2 overflowing into
// infinities and NaNs, and the reference's log1p doing the same. Multiply,
// divide and power are left out: where a product overflows they differ
// from std::complex, which recovers infinities as C's Annex G does.
TEST(ComplexMath, ComponentsOverTheWholeExponentRange) {
  const std::vector<std::pair<std::string, Opcode>> ops = {
      {"exponential", Opcode::kExp}, {"log", Opcode::kLog}, {"sqrt", Opcode::kSqrt}, {"rsqrt", Opcode::kRsqrt},
      {"tanh", Opcode::kTanh}, {"tan", Opcode::kTan}, {"sine", Opcode::kSin}, {"cosine", Opcode::kCos},
      {"sign", Opcode::kSign}, {"log-plus-one", Opcode::kLog1p}, {"exponential-minus-one", Opcode::kExpm1}};
  for (ElementType t : {ElementType::kC64, ElementType::kC128}) {
    const int64_t n = 1 << 10;
    const int span = t == ElementType::kC64 ? 126 : 1022;  // normal exponents of the parts
    std::mt19937_64 rng(static_cast<uint64_t>(t) + 17);
    Literal x(Shape(t, {n}));
    for (int64_t i = 0; i < n; ++i) {
      double part[2];
      for (double& v : part)
        v = std::ldexp(1.0 + static_cast<double>(rng() % 1000) / 1000, static_cast<int>(rng() % (2 * span)) - span) *
            ((rng() & 1) ? -1 : 1);
      x.Set(i, Scalar::Complex(t, {part[0], part[1]}));
    }
    const std::string type = std::string(ElementTypeName(t)) + "[" + std::to_string(n) + "]";
    for (const auto& [name, op] : ops) {
      const std::string what = name + " " + std::string(ElementTypeName(t));
      auto m = ParseOrFail("HloModule parts\nENTRY e {\n  x = " + type + " parameter(0)\n  ROOT r = " + type + " " + name +
                           "(x)\n}\n");
      ASSERT_TRUE(m);
      auto want = EvaluateModule(*m, {x});
      ASSERT_TRUE(want.ok()) << what << ": " << want.status().ToString();
      auto got = CompileAndRun(*m, {x});
      ASSERT_TRUE(got.ok()) << what << ": " << got.status().ToString();
      ExpectClose(*got, *want, op, what);
    }
  }
}

// reduce-precision of random bit patterns to widths from 2/1 to 11/52. It
// found the reference evaluator apart from XLA in two places: a tie with no
// mantissa bits left goes to the even biased exponent (12 -> 8, not 16),
// and an f64 near the top that rounds up is infinity, not 0.
TEST(ReducePrecision, RandomBitPatternsAtEveryWidth) {
  for (ElementType t : {ElementType::kF32, ElementType::kF64, ElementType::kF16, ElementType::kBF16}) {
    const int64_t n = 1 << 11;
    std::mt19937_64 rng(static_cast<uint64_t>(t) + 29);
    Literal x = RandomBitPatterns(t, n, rng);
    x.Set(0, Scalar::Float(t, 12.0));  // ties with no mantissa bits
    x.Set(1, Scalar::Float(t, 24.0));
    const std::string type = std::string(ElementTypeName(t)) + "[" + std::to_string(n) + "]";
    for (auto [eb, mb] : std::vector<std::pair<int, int>>{{5, 3}, {8, 7}, {5, 10}, {11, 52}, {8, 23}, {2, 1}, {4, 0}}) {
      const std::string what = "reduce-precision " + std::string(ElementTypeName(t)) + " e" + std::to_string(eb) + "m" + std::to_string(mb);
      auto m = ParseOrFail("HloModule rp\nENTRY e {\n  x = " + type + " parameter(0)\n  ROOT r = " + type +
                           " reduce-precision(x), exponent_bits=" + std::to_string(eb) + ", mantissa_bits=" + std::to_string(mb) + "\n}\n");
      ASSERT_TRUE(m);
      auto want = EvaluateModule(*m, {x});
      ASSERT_TRUE(want.ok()) << what << ": " << want.status().ToString();
      if (mb == 0) {
        EXPECT_EQ(want->Get(0).re, 8.0) << what;
        EXPECT_EQ(want->Get(1).re, 32.0) << what;
      }
      auto got = CompileAndRun(*m, {x});
      ASSERT_TRUE(got.ok()) << what << ": " << got.status().ToString();
      ExpectClose(*got, *want, Opcode::kReducePrecision, what);
    }
  }
}

TEST(Compare, EveryTypeBothComparisonKinds) {
  for (ElementType t : kAllTypes) {
    if (IsComplex(t)) continue;
    CheckOp(Opcode::kCompare, {t, t}, kRowMajor, 7 + static_cast<uint64_t>(t));
    if (IsFloat(t)) CheckOp(Opcode::kCompare, {t, t}, kColumnMajor, 9, ComparisonType::kTotalOrder);
  }
}

// Signed integers widened to 64 bits, then compared, signed and clamped:
// lavapipe (Mesa 22.3) compared a sign-extended int64_t(int) against a
// constant wrongly, so sign(convert(s8 -> s64)) came out 1 for every value
// (random program 40334) and x > 2 held for x = -5. Every narrower signed
// type, every direction, negatives, zero and the extremes.
TEST(Convert, SignedIntegersWidenedTo64BitsCompareRight) {
  for (const char* from : {"s8", "s16", "s32"})
    for (const char* to : {"s64", "u64"}) {
      const std::string f(from), t(to), n = "[9]";
      SCOPED_TRACE(f + " -> " + t);
      const ElementType ft = f == "s8" ? ElementType::kS8 : f == "s16" ? ElementType::kS16 : ElementType::kS32;
      const int64_t lo = -(int64_t{1} << (BitWidth(ft) - 1)), hi = (int64_t{1} << (BitWidth(ft) - 1)) - 1;
      Literal x(Shape(ft, {9}));
      const int64_t values[] = {lo, -5, -2, -1, 0, 1, 2, 5, hi};
      for (int64_t i = 0; i < 9; ++i) x.Set(i, Scalar::Int(ft, values[i]));
      std::string body = "  w = " + t + n + " convert(x)\n  c = " + t + "[] constant(2)\n  cb = " + t + n +
                         " broadcast(c), dimensions={}\n";
      std::string tuple;
      int k = 0;
      for (const char* dir : {"GT", "GE", "LT", "LE", "EQ", "NE"}) {
        body += "  k" + std::to_string(k) + " = pred" + n + " compare(w, cb), direction=" + dir + "\n";
        tuple += (tuple.empty() ? "" : ", ") + std::string("k") + std::to_string(k++);
      }
      if (t == "s64") {
        body += "  sg = s64" + n + " sign(w)\n  mx = s64" + n + " maximum(w, cb)\n";
        tuple += ", sg, mx";
      }
      auto m = ParseOrFail("HloModule widen\nENTRY e {\n  x = " + f + n + " parameter(0)\n" + body + "  ROOT r = tuple(" + tuple + ")\n}\n");
      ASSERT_TRUE(m);
      RunAndCompareWith(*m, {x});
    }
}

TEST(Convert, EveryPairOfTypes) {
  for (ElementType from : kAllTypes)
    for (ElementType to : kAllTypes) {
      if (IsComplex(from) && !IsComplex(to)) continue;
      CheckOp(Opcode::kConvert, {from}, (static_cast<int>(to) % 2) ? kRowMajor : kMixedTiled, 3 + static_cast<uint64_t>(from) * 32 + static_cast<uint64_t>(to),
              ComparisonType::kDefault, to);
    }
}

TEST(BitcastConvert, SameWidthTypes) {
  for (ElementType from : kAllTypes)
    for (ElementType to : kAllTypes) {
      if (BitWidth(from) != BitWidth(to) || BitWidth(from) == 128 || from == ElementType::kPred || to == ElementType::kPred) continue;
      CheckOp(Opcode::kBitcastConvert, {from}, kRowMajor, 11, ComparisonType::kDefault, to);
      CheckOp(Opcode::kBitcastConvert, {from}, kMixedTiled, 12, ComparisonType::kDefault, to);
    }
}

// Sub-byte bitcasts that change width: a byte splits into 4-bit and 2-bit
// parts, low bits first, and parts gather back into bytes.
TEST(BitcastConvert, SubByteWidthsSplitAndGather) {
  auto m = ParseOrFail(
      "HloModule sub_byte\nENTRY %e {\n  %x = s8[3] parameter(0)\n"
      "  %n = s4[3,2] bitcast-convert(%x)\n  %q = u2[3,4] bitcast-convert(%x)\n"
      "  %back = s8[3] bitcast-convert(%q)\n  ROOT %t = (s4[3,2], u2[3,4], s8[3]) tuple(%n, %q, %back)\n}\n");
  ASSERT_TRUE(m);
  Literal x(Shape(ElementType::kS8, {3}));
  const int64_t bytes[] = {0x1e, -0x80, -1};  // 00011110, 10000000, 11111111
  for (int i = 0; i < 3; ++i) x.Set(i, Scalar::Int(ElementType::kS8, bytes[i]));
  Literal got = RunAndCompareWith(*m, {x});
  ASSERT_TRUE(got.shape().IsTuple());
  EXPECT_EQ(got.tuple_elements()[0].ValuesToString(), "{{-2, 1}, {0, -8}, {-1, -1}}");
  EXPECT_EQ(got.tuple_elements()[1].ValuesToString(), "{{2, 3, 1, 0}, {0, 0, 0, 2}, {3, 3, 3, 3}}");
  EXPECT_EQ(got.tuple_elements()[2].ValuesToString(), "{30, -128, -1}");
}

// c128 splits into its words as XLA lays out the bytes (the real part's
// low word first): two c64, f64 or s64, four f32 or u32; and gathers back.
TEST(BitcastConvert, C128SplitsAndGathers) {
  auto m = ParseOrFail(
      "HloModule c128\nENTRY %e {\n  %x = c128[2] parameter(0)\n"
      "  %c = c64[2,2] bitcast-convert(%x)\n  %d = f64[2,2] bitcast-convert(%x)\n  %u = u32[2,4] bitcast-convert(%x)\n"
      "  %s = s64[2,2] bitcast-convert(%x)\n  %f = f32[2,4] bitcast-convert(%x)\n"
      "  %from_c = c128[2] bitcast-convert(%c)\n  %from_u = c128[2] bitcast-convert(%u)\n  %from_s = c128[2] bitcast-convert(%s)\n"
      "  ROOT %t = (c64[2,2], f64[2,2], u32[2,4], s64[2,2], f32[2,4], c128[2], c128[2], c128[2]) tuple(%c, %d, %u, %s, %f, %from_c, %from_u, %from_s)\n}\n");
  ASSERT_TRUE(m);
  Literal x(Shape(ElementType::kC128, {2}));
  x.Set(0, Scalar::Complex(ElementType::kC128, {1.0, -2.0}));
  x.Set(1, Scalar::Complex(ElementType::kC128, {0.1, 3e300}));
  Literal got = RunAndCompareWith(*m, {x});
  ASSERT_TRUE(got.shape().IsTuple());
  // 1.0 is 0x3FF00000_00000000: words 0, 0x3FF00000; -2.0 is 0xC0000000_00000000.
  EXPECT_EQ(got.tuple_elements()[1].ValuesToString(), "{{1, -2}, {0.1, 3e+300}}");
  EXPECT_EQ(got.tuple_elements()[2].ValuesToString().substr(0, 33), "{{0, 1072693248, 0, 3221225472}, ");
  for (int k = 5; k < 8; ++k) EXPECT_EQ(got.tuple_elements()[k].ValuesToString(), x.ValuesToString()) << k;
}

// The IEEE-like 8-bit floats (with infinities) encode as their formats
// say: f8e4m3 (bias 7, largest 240), f8e3m4 (bias 3, largest 15.5);
// overflow goes to infinity, the smallest subnormal survives.
TEST(Convert, F8E4M3AndF8E3M4Encodings) {
  auto m = ParseOrFail(
      "HloModule f8\nENTRY %e {\n  %x = f32[7] parameter(0)\n"
      "  %a = f8e4m3[7] convert(%x)\n  %ab = u8[7] bitcast-convert(%a)\n"
      "  %b = f8e3m4[7] convert(%x)\n  %bb = u8[7] bitcast-convert(%b)\n"
      "  ROOT %t = (u8[7], u8[7]) tuple(%ab, %bb)\n}\n");
  ASSERT_TRUE(m);
  Literal x(Shape(ElementType::kF32, {7}));
  const double values[] = {240, 250, 0.001953125, 0.5, 15.5, -INFINITY, NAN};
  for (int i = 0; i < 7; ++i) x.Set(i, Scalar::Float(ElementType::kF32, values[i]));
  Literal got = RunAndCompareWith(*m, {x});
  ASSERT_TRUE(got.shape().IsTuple());
  // f8e4m3: 240 largest; 250 overflows; 2^-9 the smallest subnormal; 15.5
  // rounds (ties to even) up to 16.
  EXPECT_EQ(got.tuple_elements()[0].ValuesToString(), "{119, 120, 1, 48, 88, 248, 124}");
  // f8e3m4: 240 and 250 overflow; 2^-9 underflows to 0; 15.5 largest.
  EXPECT_EQ(got.tuple_elements()[1].ValuesToString(), "{112, 112, 0, 32, 111, 240, 120}");
}

// The f8, f6 and f4 types without IEEE specials encode as ml_dtypes does:
// fnuz has no -0 and one NaN (0x80) that overflow and infinities become;
// f8e8m0fnu is unsigned powers of two (0 -> 2^-127, negative -> NaN, ties to
// the even exponent); the MX f4/f6 types saturate and turn NaN into the
// sign-flipped zero.
TEST(Convert, NarrowFloatsWithoutIeeeSpecialsEncodeAsMlDtypes) {
  struct Case {
    ElementType type;
    std::vector<double> in;
    std::vector<uint64_t> bits;
  } cases[] = {
      {ElementType::kF8E4M3FNUZ, {240, 250, std::ldexp(1, -10), -0.0, -INFINITY, NAN, 0.5, -1e-9}, {0x7F, 0x80, 0x01, 0x00, 0x80, 0x80, 0x38, 0x00}},
      {ElementType::kF8E5M2FNUZ, {57344, 65536, std::ldexp(1, -17), -0.0, INFINITY, NAN, 0.5, -3}, {0x7F, 0x80, 0x01, 0x00, 0x80, 0x80, 0x3C, 0xC6}},
      {ElementType::kF8E4M3B11FNUZ, {30, 31, std::ldexp(1, -13), -0.0, -INFINITY, NAN, 0.5, -29}, {0x7F, 0x80, 0x01, 0x00, 0x80, 0x80, 0x50, 0xFE}},
      {ElementType::kF8E8M0FNU, {1, 3, 0, -1, std::ldexp(1, 127), 3e38, 0.75, NAN}, {127, 128, 0, 0xFF, 254, 0xFF, 126, 0xFF}},
      {ElementType::kF4E2M1FN, {6, 7, 100, -INFINITY, NAN, 0.25, 0.75, -1.5}, {0x7, 0x7, 0x7, 0xF, 0x8, 0x0, 0x2, 0xB}},
      {ElementType::kF6E2M3FN, {7.5, 8, -100, -INFINITY, NAN, 0.0625, 0.1875, 1.125}, {0x1F, 0x1F, 0x3F, 0x3F, 0x20, 0x00, 0x02, 0x09}},
      {ElementType::kF6E3M2FN, {28, 1000, 0.03125, -0.0, NAN, 0.09375, -28, 0.3}, {0x1F, 0x1F, 0x00, 0x20, 0x20, 0x02, 0x3F, 0x05}},
  };
  for (const Case& c : cases) {
    const std::string name(ElementTypeName(c.type));
    SCOPED_TRACE(name);
    auto m = ParseOrFail("HloModule narrow\nENTRY %e {\n  %x = f32[8] parameter(0)\n  ROOT %y = " + name + "[8] convert(%x)\n}\n");
    ASSERT_TRUE(m);
    Literal x(Shape(ElementType::kF32, {8}));
    for (int i = 0; i < 8; ++i) x.Set(i, Scalar::Float(ElementType::kF32, c.in[i]));
    Literal got = RunAndCompareWith(*m, {x});
    for (int i = 0; i < 8; ++i) EXPECT_EQ(got.Get(i).Bits(), c.bits[i]) << "element " << i << " (" << c.in[i] << ")";
  }
}

// Every bit pattern of each narrow float decodes on the device as on the
// host, and converting the value back gives the same bits.
TEST(Convert, EveryNarrowFloatBitPatternRoundTrips) {
  for (ElementType t : ArrayElementTypes()) {
    if (!IsFloat(t) || BitWidth(t) > 8) continue;
    const std::string name(ElementTypeName(t));
    SCOPED_TRACE(name);
    const int64_t n = int64_t{1} << BitWidth(t);
    const std::string shape = "[" + std::to_string(n) + "]";
    auto m = ParseOrFail("HloModule patterns\nENTRY %e {\n  %x = " + name + shape + " parameter(0)\n  %f = f32" + shape +
                         " convert(%x)\n  %back = " + name + shape + " convert(%f)\n  ROOT %t = (f32" + shape + ", " + name +
                         shape + ") tuple(%f, %back)\n}\n");
    ASSERT_TRUE(m);
    Literal x(Shape(t, {n}));
    for (int64_t i = 0; i < n; ++i) x.Set(i, Scalar::FromBits(t, static_cast<uint64_t>(i)));
    Literal got = RunAndCompareWith(*m, {x});
    ASSERT_TRUE(got.shape().IsTuple());
    for (int64_t i = 0; i < n; ++i) {
      const double want = DecodeNarrowFloat(static_cast<uint32_t>(i), t);
      const double f = got.tuple_elements()[0].Get(i).re;
      EXPECT_TRUE(f == want || (std::isnan(f) && std::isnan(want))) << "bits " << i << ": " << f << " vs " << want;
      const uint64_t back = got.tuple_elements()[1].Get(i).Bits();
      // NaN patterns other than the type's canonical one come back canonical.
      if (!std::isnan(want)) {
        EXPECT_EQ(back, static_cast<uint64_t>(i)) << "bits " << i;
      }
    }
  }
  // The formats' extremes, from ml_dtypes' tables.
  EXPECT_EQ(DecodeNarrowFloat(0x7F, ElementType::kF8E4M3FNUZ), 240);
  EXPECT_EQ(DecodeNarrowFloat(0x7F, ElementType::kF8E5M2FNUZ), 57344);
  EXPECT_EQ(DecodeNarrowFloat(0x7F, ElementType::kF8E4M3B11FNUZ), 30);
  EXPECT_EQ(DecodeNarrowFloat(0x01, ElementType::kF8E4M3B11FNUZ), std::ldexp(1, -13));
  EXPECT_EQ(DecodeNarrowFloat(0xFE, ElementType::kF8E8M0FNU), std::ldexp(1, 127));
  EXPECT_EQ(DecodeNarrowFloat(0x00, ElementType::kF8E8M0FNU), std::ldexp(1, -127));
  EXPECT_EQ(DecodeNarrowFloat(0x7, ElementType::kF4E2M1FN), 6);
  EXPECT_EQ(DecodeNarrowFloat(0x1F, ElementType::kF6E2M3FN), 7.5);
  EXPECT_EQ(DecodeNarrowFloat(0x1F, ElementType::kF6E3M2FN), 28);
  EXPECT_EQ(DecodeNarrowFloat(0x01, ElementType::kF6E3M2FN), 0.0625);
  EXPECT_TRUE(std::isnan(DecodeNarrowFloat(0x80, ElementType::kF8E4M3FNUZ)));
  EXPECT_TRUE(std::isnan(DecodeNarrowFloat(0xFF, ElementType::kF8E8M0FNU)));
}

// Worked examples from the spec pages.

Literal F32Literal(const Shape& shape, const std::vector<double>& values) {
  Literal l(shape);
  for (size_t i = 0; i < values.size(); ++i) l.Set(static_cast<int64_t>(i), Scalar::Float(ElementType::kF32, values[i]));
  return l;
}

// Builds Add(lhs, rhs, broadcast_dimensions), runs it, returns the values' text.
std::string RunBroadcastAdd(const Literal& lhs, const Literal& rhs, const std::vector<int64_t>& broadcast_dimensions) {
  XlaBuilder b("broadcast_add");
  XlaOp x = b.Parameter(0, lhs.shape(), "lhs"), y = b.Parameter(1, rhs.shape(), "rhs");
  auto module = b.Build(Add(x, y, broadcast_dimensions));
  if (!module.ok()) return module.status().ToString();
  auto exe = Executable::Compile(**module, TestDevice());
  if (!exe.ok()) return exe.status().ToString();
  auto r = (*exe)->Run({lhs, rhs});
  return r.ok() ? r->ValuesToString() : r.status().ToString();
}

TEST(SpecExamples, BroadcastAddOfVectorToMatrix) {
  // broadcasting.ja.txt: |1 2 3| + |7 8 9| = |8 10 12; 11 13 15|
  EXPECT_EQ(RunBroadcastAdd(F32Literal(Shape(ElementType::kF32, {2, 3}), {1, 2, 3, 4, 5, 6}),
                            F32Literal(Shape(ElementType::kF32, {3}), {7, 8, 9}), {1}),
            "{{8, 10, 12}, {11, 13, 15}}");
}

TEST(SpecExamples, DegenerateAndRankBroadcastCompose) {
  // broadcasting.ja.txt: a size-4 vector plus a 1x2 matrix with
  // broadcast_dimensions (0) gives 4x2.
  EXPECT_EQ(RunBroadcastAdd(F32Literal(Shape(ElementType::kF32, {4}), {1, 2, 3, 4}),
                            F32Literal(Shape(ElementType::kF32, {1, 2}), {5, 6}), {0}),
            "{{6, 7}, {7, 8}, {8, 9}, {9, 10}}");
}

TEST(SpecExamples, IntegerEdgeCases) {
  // StableHLO: shifts by >= the width; XLA's division by zero and overflow.
  auto module = ParseAndVerifyHlo(R"(HloModule ints
ENTRY %e {
  %a = s32[4] constant({-2147483648, 7, -7, 1})
  %b = s32[4] constant({-1, 0, 2, 33})
  %d = s32[4] divide(%a, %b)
  %r = s32[4] remainder(%a, %b)
  %l = s32[4] shift-left(%a, %b)
  %s = s32[4] shift-right-arithmetic(%a, %b)
  ROOT %t = (s32[4], s32[4], s32[4], s32[4]) tuple(%d, %r, %l, %s)
})");
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  auto exe = Executable::Compile(**module, TestDevice());
  ASSERT_TRUE(exe.ok()) << exe.status().ToString();
  auto r = (*exe)->Run({});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->ValuesToString(),
            "({-2147483648, -1, -3, 0}, {0, 7, -1, 1}, {0, 7, -28, 0}, {-1, 7, -2, 0})");
}

// IEEE arithmetic with a constant +0 operand: inf * 0 and 0 / 0 are NaN,
// 1 / 0 is inf, -0 + 0 is +0. llvmpipe's IR builder folded all of these
// (0, 0, 0 and -0) when the zero was a literal (a random program found
// it); the signs of zeros are compared too. So with a zero converted from
// an integer or pred constant, which the driver folded into a float +0 as
// well (a random program's dot of a converted zero and an infinity was 0).
TEST(SpecExamples, FloatArithmeticWithAConstantZeroKeepsIeeeSpecials) {
  for (ElementType t : {ElementType::kF32, ElementType::kF64, ElementType::kF16, ElementType::kBF16}) {
    const std::string ty(ElementTypeName(t));
    std::string body = "  %x = " + ty + "[7] parameter(0)\n  %c = " + ty + "[] constant(0)\n  %z = " + ty +
                       "[7] broadcast(%c), dimensions={}\n";
    std::string tuple, shapes;
    int k = 0;
    auto result = [&](const std::string& op, const std::string& a, const std::string& b) {
      const std::string r = "%r" + std::to_string(k++);
      body += "  " + r + " = " + ty + "[7] " + op + "(" + a + ", " + b + ")\n";
      tuple += (tuple.empty() ? "" : ", ") + r;
      shapes += (shapes.empty() ? "" : ", ") + ty + "[7]";
    };
    for (const char* op : {"multiply", "add", "subtract", "divide"})
      for (const bool zero_first : {false, true}) result(op, zero_first ? "%z" : "%x", zero_first ? "%x" : "%z");
    for (const char* source : {"s32[] constant(0)", "u8[] constant(0)", "s64[] constant(0)", "pred[] constant(false)"}) {
      const std::string id = std::to_string(k);
      body += "  %i" + id + " = " + source + "\n  %f" + id + " = " + ty + "[] convert(%i" + id + ")\n  %b" + id + " = " + ty +
              "[7] broadcast(%f" + id + "), dimensions={}\n";
      result("multiply", "%x", "%b" + id);
      result("divide", "%b" + id, "%x");
    }
    auto m = ParseAndVerifyHlo("HloModule zeros\nENTRY %e {\n" + body + "  ROOT %t = (" + shapes + ") tuple(" + tuple + ")\n}\n");
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    Literal x(Shape(t, {7}));
    const double values[] = {1, -2, INFINITY, -INFINITY, NAN, -0.0, 0.0};
    for (int i = 0; i < 7; ++i) x.Set(i, Scalar::Float(t, values[i]));
    auto want = EvaluateModule(**m, {x});
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    auto got = CompileAndRun(**m, {x});
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    const std::vector<const Literal*> g = got->Leaves(), w = want->Leaves();
    for (size_t leaf = 0; leaf < g.size(); ++leaf)
      for (int i = 0; i < 7; ++i) {
        const double a = g[leaf]->Get(i).re, b = w[leaf]->Get(i).re;
        EXPECT_TRUE((std::isnan(a) && std::isnan(b)) || (a == b && std::signbit(a) == std::signbit(b)))
            << ty << " result " << leaf << " at x = " << values[i] << ": device " << a << ", reference " << b;
      }
  }
}

// Every integer op of constant operands, each integer type: the device's
// compiler folds them, and glslang 11 folded abs() and sign() of 64-bit
// constants wrongly (abs(-2) gave -2, sign(-2) 4294967295; a random
// program found it), so 64-bit abs and sign are written as selects.
TEST(SpecExamples, IntegerOpsOfConstantsFoldToTheirValues) {
  const std::vector<std::string> unary = {"abs", "sign", "negate", "not", "popcnt", "count-leading-zeros"};
  const std::vector<std::string> binary = {"add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum",
                                           "and", "or", "xor", "shift-left", "shift-right-logical", "shift-right-arithmetic"};
  for (ElementType t : {ElementType::kS64, ElementType::kU64, ElementType::kS32, ElementType::kU32, ElementType::kS16,
                        ElementType::kS8, ElementType::kU8}) {
    const std::string ty(ElementTypeName(t));
    const std::string a = IsSignedInt(t) ? "-2" : std::to_string(IntegerMax(t) - 1);
    std::string body = "  %a = " + ty + "[] constant(" + a + ")\n  %b = " + ty + "[] constant(3)\n";
    std::string tuple, shapes;
    for (const std::string& op : unary) {
      if ((op == "abs" || op == "sign") && !IsSignedInt(t)) continue;
      body += "  %" + op + " = " + ty + "[] " + op + "(%a)\n";
      tuple += (tuple.empty() ? "%" : ", %") + op;
      shapes += (shapes.empty() ? "" : ", ") + ty + "[]";
    }
    for (const std::string& op : binary) {
      body += "  %" + op + " = " + ty + "[] " + op + "(%a, %b)\n";
      tuple += ", %" + op;
      shapes += ", " + ty + "[]";
    }
    SCOPED_TRACE(ty);
    auto m = ParseAndVerifyHlo("HloModule constants\nENTRY %e {\n" + body + "  ROOT %t = (" + shapes + ") tuple(" + tuple + ")\n}\n");
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    auto want = EvaluateModule(**m, {});
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    auto got = CompileAndRun(**m, {});
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(got->ValuesToString(), want->ValuesToString());
  }
  // The cases that failed: abs(-2) and sign(-2) of s64.
  auto m = ParseAndVerifyHlo("HloModule s64\nENTRY %e {\n  %a = s64[] constant(-2)\n  %abs = s64[] abs(%a)\n"
                             "  %sign = s64[] sign(%a)\n  ROOT %t = (s64[], s64[]) tuple(%abs, %sign)\n}\n");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  auto got = CompileAndRun(**m, {});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->ValuesToString(), "(2, -1)");
}

// sign of a computed s64 count of leading zeros: llvmpipe (Mesa 22.3) gave
// 1 for a zero count when the sign was two nested 64-bit compares (a
// random program found it), so it is taken from the 32-bit words.
TEST(SpecExamples, SignOfSixtyFourBitValuesComputedInline) {
  auto m = ParseAndVerifyHlo("HloModule s64\nENTRY %e {\n  %x = s64[6] parameter(0)\n  %c = s64[6] count-leading-zeros(%x)\n"
                             "  %s = s64[6] sign(%c)\n  %n = s64[6] negate(%x)\n  %t = s64[6] sign(%n)\n"
                             "  ROOT %r = (s64[6], s64[6]) tuple(%s, %t)\n}\n");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  Literal x(Shape(ElementType::kS64, {6}));
  const int64_t v[] = {-5, 0, 3, int64_t{1} << 40, std::numeric_limits<int64_t>::min(), -1};
  for (int64_t i = 0; i < 6; ++i) x.Set(i, Scalar::Int(ElementType::kS64, v[i]));
  auto got = CompileAndRun(**m, {x});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  // clz: 0, 64, 62, 23, 0, 0; -x: 5, 0, -3, -2^40, min (wraps), 1.
  EXPECT_EQ(got->ValuesToString(), "({0, 1, 1, 1, 0, 0}, {1, 0, -1, -1, -1, 1})");
}

TEST(Executable, FusesWholeElementwiseDagIntoOneKernel) {
  auto module = ParseAndVerifyHlo(R"(HloModule fused
ENTRY %e {
  %x = f32[64] parameter(0)
  %y = f32[64] parameter(1)
  %c = f32[] constant(2)
  %b = f32[64] broadcast(%c), dimensions={}
  %i = f32[64] iota(), iota_dimension=0
  %m = f32[64] multiply(%x, %b)
  %a = f32[64] add(%m, %y)
  %s = f32[64] sine(%a)
  ROOT %r = f32[64] add(%s, %i)
})");
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  auto exe = Executable::Compile(**module, TestDevice());
  ASSERT_TRUE(exe.ok()) << exe.status().ToString();
  EXPECT_EQ((*exe)->kernel_count(), 1);
  // Upload copies, then one dispatch, then the download: two hazards.
  EXPECT_EQ((*exe)->barrier_count(), 2);
}

TEST(Executable, ArgumentMismatchNamesParameterAndShapes) {
  auto module = ParseAndVerifyHlo("HloModule m\nENTRY %e {\n  %x = f32[3] parameter(0)\n  ROOT %n = f32[3] negate(%x)\n}\n");
  ASSERT_TRUE(module.ok());
  auto exe = Executable::Compile(**module, TestDevice());
  ASSERT_TRUE(exe.ok()) << exe.status().ToString();
  auto r = (*exe)->Run({Literal(Shape(ElementType::kS32, {3}))});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("f32[3]"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("s32[3]"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace vkxla
