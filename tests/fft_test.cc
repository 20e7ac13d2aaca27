// Fft on the device (VkFFT for the complex transforms, RFFT and IRFFT
// expanded around them): the spec's examples, every fft_type on c64/c128
// (f32/f64) in 1-D to 3-D with batches against the evaluator's
// double-precision DFT, lengths that are powers of two, odd, prime (through
// Bluestein's algorithm, single and multi-pass) and of small primes,
// operands and results in other layouts, fused neighbours, round trips,
// and the errors for bad fft_length and for devices without f64.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>

#include "frontends/hlo_text.h"
#include "frontends/stablehlo_reader.h"
#include "ops/evaluator.h"
#include "plan/planner.h"
#include "runtime/executable.h"
#include "tests/test_util.h"

namespace vkxla {
namespace {

class Fft : public ::testing::Test {
 protected:
  void TearDown() override { ExpectNoValidationMessages(); }
};

// Uniform values in [-1, 1) (both parts for complex types).
Literal UniformLiteral(const Shape& shape, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Literal l(Shape(shape.element_type(), shape.dims()));
  for (int64_t i = 0; i < l.element_count(); ++i) {
    if (IsComplex(shape.element_type())) {
      const double re = u(rng), im = u(rng);
      l.Set(i, Scalar::Complex(shape.element_type(), {re, im}));
    } else {
      l.Set(i, Scalar::Float(shape.element_type(), u(rng)));
    }
  }
  return l;
}

std::string Lengths(const std::vector<int64_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

std::string Dims(const std::vector<int64_t>& v) { return "[" + Lengths(v) + "]"; }

// The FFT's error bound: each transformed array of the result (its
// innermost `transformed` dims) is within c * log2(2N) * eps * ||y||_2 of
// the exact transform y (N the array's elements, eps the unit roundoff of
// the type): the 2-norm bound of a Cooley-Tukey or Bluestein FFT, checked
// element by element, with c = 8.
void ExpectWithinFftBound(const Literal& got, const Literal& want, int transformed, const std::string& what) {
  ASSERT_EQ(got.shape().dims(), want.shape().dims()) << what;
  const ElementType t = want.shape().element_type();
  const bool f64 = t == ElementType::kF64 || t == ElementType::kC128;
  const double eps = f64 ? 0x1p-53 : 0x1p-24;
  const std::vector<int64_t>& dims = want.shape().dims();
  int64_t array = 1;
  for (size_t d = dims.size() - static_cast<size_t>(transformed); d < dims.size(); ++d) array *= dims[d];
  array = std::max<int64_t>(1, array);
  const double log_n = std::log2(2.0 * static_cast<double>(array));
  int reported = 0;
  for (int64_t start = 0; start < want.element_count(); start += array) {
    const int64_t end = std::min(want.element_count(), start + array);
    double norm = 0;
    for (int64_t i = start; i < end; ++i) norm += std::norm(want.Get(i).c());
    const double bound = 8.0 * log_n * eps * std::sqrt(norm);
    for (int64_t i = start; i < end; ++i) {
      const double err = std::abs(got.Get(i).c() - want.Get(i).c());
      if (!(err <= bound) && reported++ < 5)
        ADD_FAILURE() << what << ": element " << i << " is " << got.Get(i).ToString() << ", expected "
                      << want.Get(i).ToString() << " (error " << err << ", bound " << bound << ")";
    }
  }
}

// One fft op as HLO text over a parameter of `in` (with `layout` if given).
std::string FftModule(const std::string& in_type, const std::vector<int64_t>& in_dims, const std::string& out_type,
                      const std::vector<int64_t>& out_dims, const std::string& fft_type, const std::vector<int64_t>& lengths,
                      const std::string& in_layout = "", const std::string& out_layout = "") {
  return "HloModule fft\n\nENTRY main {\n  x = " + in_type + Dims(in_dims) + in_layout + " parameter(0)\n  ROOT f = " + out_type +
         Dims(out_dims) + out_layout + " fft(x), fft_type=" + fft_type + ", fft_length={" + Lengths(lengths) + "}\n}\n";
}

// Runs the module on the device and the evaluator with uniform inputs and
// checks the FFT bound; returns the device result.
Literal RunFft(const std::string& text, int transformed, uint64_t seed, const std::string& what) {
  auto module = ParseOrFail(text);
  if (!module) return Literal();
  const Shape& param = module->entry()->parameters()[0]->shape;
  Literal x = UniformLiteral(param, seed);
  StatusOr<Literal> want = EvaluateModule(*module, {x});
  EXPECT_TRUE(want.ok()) << what << ": " << want.status().ToString();
  StatusOr<Literal> got = CompileAndRun(*module, {x});
  EXPECT_TRUE(got.ok()) << what << ": " << got.status().ToString();
  if (!got.ok() || !want.ok()) return Literal();
  ExpectWithinFftBound(*got, *want, transformed, what);
  return std::move(got).value();
}

bool HasF64() { return TestDevice().target().float64; }

TEST_F(Fft, SpecExamples) {
  // stablehlo_spec.md's example: an impulse transforms to all ones.
  EXPECT_EQ(RunHloText("", "  x = c64[4] constant({(1, 0), (0, 0), (0, 0), (0, 0)})\n"
                           "  ROOT f = c64[4] fft(x), fft_type=FFT, fft_length={4}\n"),
            "{(1, 0), (1, 0), (1, 0), (1, 0)}");
  // The page's shapes: RFFT keeps n/2 + 1 frequencies, IRFFT restores n.
  // (The sign of a zero part is the algorithm's: VkFFT's R2C gives -0 at Nyquist here.)
  std::string rfft = RunHloText("", "  x = f32[4] constant({1, 2, 3, 4})\n  ROOT f = c64[3] fft(x), fft_type=RFFT, fft_length={4}\n");
  for (size_t at; (at = rfft.find("-0)")) != std::string::npos;) rfft.replace(at, 3, "0)");
  EXPECT_EQ(rfft, "{(10, 0), (-2, 2), (-2, 0)}");
  EXPECT_EQ(RunHloText("", "  x = c64[3] constant({(10, 0), (-2, 2), (-2, 0)})\n"
                           "  ROOT f = f32[4] fft(x), fft_type=IRFFT, fft_length={4}\n"),
            "{1, 2, 3, 4}");
  EXPECT_EQ(RunHloText("", "  x = c64[2] constant({(4, -2), (-2, 6)})\n  ROOT f = c64[2] fft(x), fft_type=IFFT, fft_length={2}\n"),
            "{(1, 2), (3, -4)}");
}

struct ComplexCase {
  std::vector<int64_t> dims;
  int transformed;
};

// FFT and IFFT over c64 and c128: batches of 1-D (powers of two, odd,
// prime, four-step and multi-pass Bluestein lengths), 2-D and 3-D (with a
// Bluestein outer dim, batched: one launch per batch element).
TEST_F(Fft, ComplexTransformsMatchTheReference) {
  const std::vector<ComplexCase> cases = {
      {{8}, 1},       {{3, 17}, 1},       {{2, 1000}, 1},     {{5, 1009}, 1},       {{2, 4099}, 1},
      {{16384}, 1},   {{2, 16, 12}, 2},   {{31, 17}, 2},      {{3, 4, 1009}, 2},    {{6, 5, 7}, 3},
      {{2, 4, 4, 257}, 3}, {{2, 3, 17, 31}, 3}, {{1, 1}, 1}};
  uint64_t seed = 1;
  for (const char* type : {"c64", "c128"}) {
    if (std::string(type) == "c128" && !HasF64()) continue;  // products there: WithoutF64DoubleTransformsRunAsProducts
    for (const ComplexCase& c : cases)
      for (const char* kind : {"FFT", "IFFT"}) {
        const std::vector<int64_t> lengths(c.dims.end() - c.transformed, c.dims.end());
        RunFft(FftModule(type, c.dims, type, c.dims, kind, lengths), c.transformed, seed++,
               std::string(kind) + " " + type + Dims(c.dims) + " over " + Dims(lengths));
      }
  }
}

// The case that first came back wrong from VkFFT (relative error 1.0): a
// batch of 1,040 transforms of prime length 1009, through Bluestein.
TEST_F(Fft, ManyPrimeLengthTransforms) {
  RunFft(FftModule("c64", {1040, 1009}, "c64", {1040, 1009}, "FFT", {1009}), 1, 77, "FFT c64[1040,1009]");
}

// RFFT and IRFFT (f32 <-> c64, f64 <-> c128): even and odd lengths, n = 1
// and 2 (nothing to mirror), prime lengths, 2-D and 3-D. IRFFT's inputs are
// not Hermitian: the result is the spec's (inverse the outer dims, then a
// real inverse of the innermost, whose DC and Nyquist imaginary parts drop).
TEST_F(Fft, RealTransformsMatchTheReference) {
  const std::vector<ComplexCase> cases = {{{3, 8}, 1},  {{2, 9}, 1},  {{2, 16384}, 1}, {{5, 2}, 1},        {{1}, 1},        {{4, 2}, 1},  {{1009}, 1},
                                          {{2, 6, 10}, 2}, {{3, 5, 7}, 2}, {{2, 4, 6, 5}, 3}, {{3, 3, 3}, 3}, {{2, 4, 4, 257}, 3}};
  uint64_t seed = 100;
  for (const auto& [real, complex] : {std::pair{"f32", "c64"}, std::pair{"f64", "c128"}}) {
    if (std::string(real) == "f64" && !HasF64()) continue;  // products there: WithoutF64DoubleTransformsRunAsProducts
    for (const ComplexCase& c : cases) {
      const std::vector<int64_t> lengths(c.dims.end() - c.transformed, c.dims.end());
      std::vector<int64_t> half = c.dims;
      half.back() = half.back() / 2 + 1;
      RunFft(FftModule(real, c.dims, complex, half, "RFFT", lengths), c.transformed, seed++,
             std::string("RFFT ") + real + Dims(c.dims) + " over " + Dims(lengths));
      RunFft(FftModule(complex, half, real, c.dims, "IRFFT", lengths), c.transformed, seed++,
             std::string("IRFFT ") + complex + Dims(half) + " over " + Dims(lengths));
    }
  }
}

// An IRFFT of an RFFT gives the signal back.
TEST_F(Fft, RealRoundTrips) {
  auto module = ParseOrFail(
      "HloModule r\n\nENTRY main {\n  x = f32[3,10,9] parameter(0)\n"
      "  s = c64[3,10,5] fft(x), fft_type=RFFT, fft_length={10,9}\n"
      "  ROOT b = f32[3,10,9] fft(s), fft_type=IRFFT, fft_length={10,9}\n}\n");
  ASSERT_TRUE(module);
  Literal x = UniformLiteral(module->entry()->parameters()[0]->shape, 7);
  StatusOr<Literal> got = CompileAndRun(*module, {x});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ExpectWithinFftBound(*got, x, 2, "IRFFT(RFFT(x))");
}

// Operands and results in other layouts: the operand is relaid into a
// dense row-major buffer for VkFFT (or read so by the kernel that writes
// it), the result read through its buffer's layout.
TEST_F(Fft, OperandsAndResultsInOtherLayouts) {
  RunFft(FftModule("c64", {8, 6}, "c64", {8, 6}, "FFT", {8, 6}, "{0,1}", "{0,1}"), 2, 11, "FFT c64[8,6]{0,1}");
  RunFft(FftModule("c64", {4, 16}, "c64", {4, 16}, "IFFT", {16}, "{1,0:T(2,8)}", "{0,1}"), 1, 12, "IFFT tiled operand");
  RunFft(FftModule("f32", {6, 8}, "c64", {6, 5}, "RFFT", {8}, "{0,1}", "{0,1}"), 1, 13, "RFFT f32[6,8]{0,1}");
  RunFft(FftModule("c64", {5, 4, 3}, "f32", {5, 4, 4}, "IRFFT", {4, 4}, "{1,2,0}", "{2,0,1}"), 2, 14, "IRFFT in {1,2,0}");
}

// Converts and elementwise ops around an FFT fuse into the kernels before
// and after it: |FFT(complex(2x, 0))| is one kernel writing the operand and
// one reading the result, with the RFFT's slice fused too.
TEST_F(Fft, NeighboursFuse) {
  auto module = ParseOrFail(
      "HloModule f\n\nENTRY main {\n  x = f16[4,16] parameter(0)\n  w = f32[4,16] convert(x)\n"
      "  two = f32[] constant(2)\n  b = f32[4,16] broadcast(two), dimensions={}\n  y = f32[4,16] multiply(w, b)\n"
      "  s = c64[4,9] fft(y), fft_type=RFFT, fft_length={16}\n  ROOT a = f32[4,9] abs(s)\n}\n");
  ASSERT_TRUE(module);
  StatusOr<Program> plan = PlanModule(*module, TestDevice().target());
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan->groups.size(), 2u) << plan->ToString();
  Literal x = UniformLiteral(module->entry()->parameters()[0]->shape, 21);
  StatusOr<Literal> want = EvaluateModule(*module, {x});
  StatusOr<Literal> got = CompileAndRun(*module, {x});
  ASSERT_TRUE(got.ok() && want.ok()) << got.status().ToString();
  ExpectWithinFftBound(*got, *want, 1, "|RFFT(2 x)|");
}

// The same FFT inside a loop body whose state ping-pongs: the step records
// over both buffer sets.
TEST_F(Fft, InsideALoop) {
  auto module = ParseOrFail(R"(HloModule l

cond {
  p = (s32[], c64[4,8]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  p = (s32[], c64[4,8]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = c64[4,8] get-tuple-element(p), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  f = c64[4,8] fft(x), fft_type=FFT, fft_length={8}
  k = c64[] constant((0.125, 0))
  kb = c64[4,8] broadcast(k), dimensions={}
  r = c64[4,8] multiply(f, kb)
  t = c64[4,8] transpose(r), dimensions={0,1}
  ROOT out = (s32[], c64[4,8]) tuple(j, t)
}

ENTRY main {
  x = c64[4,8] parameter(0)
  zero = s32[] constant(0)
  s = (s32[], c64[4,8]) tuple(zero, x)
  w = (s32[], c64[4,8]) while(s), condition=cond, body=body
  ROOT y = c64[4,8] get-tuple-element(w), index=1
}
)");
  ASSERT_TRUE(module);
  Literal x = UniformLiteral(module->entry()->parameters()[0]->shape, 31);
  StatusOr<Literal> want = EvaluateModule(*module, {x});
  StatusOr<Literal> got = CompileAndRun(*module, {x});
  ASSERT_TRUE(got.ok() && want.ok()) << got.status().ToString();
  ExpectWithinFftBound(*got, *want, 1, "five FFTs in a loop");
}

TEST_F(Fft, BadLengthsAndTypesAreErrors) {
  ExpectHloError("", "  x = c64[4,8] parameter(0)\n  ROOT f = c64[4,8] fft(x), fft_type=FFT, fft_length={6}\n",
                 {"fft", "c64[4,8]", "fft_length {6}", "dim 1 must be 6"});
  ExpectHloError("", "  x = c64[2,2,2,2] parameter(0)\n  ROOT f = c64[2,2,2,2] fft(x), fft_type=FFT, fft_length={2,2,2,2}\n",
                 {"fft", "1 to 3 dims", "c64[2,2,2,2]"});
  ExpectHloError("", "  x = f32[8] parameter(0)\n  ROOT f = c64[8] fft(x), fft_type=FFT, fft_length={8}\n",
                 {"fft", "FFT takes c64 or c128", "f32[8]"});
  ExpectHloError("", "  x = c64[8] parameter(0)\n  ROOT f = f32[8] fft(x), fft_type=IRFFT, fft_length={8}\n",
                 {"fft", "c64[8]", "must be 5"});
  ExpectHloError("", "  x = s32[8] parameter(0)\n  ROOT f = c64[5] fft(x), fft_type=RFFT, fft_length={8}\n",
                 {"RFFT takes f32 or f64", "s32[8]"});
  ExpectHloError("", "  x = c64[8] parameter(0)\n  ROOT f = c64[8] fft(x), fft_type=DCT, fft_length={8}\n",
                 {"fft_type", "DCT"});
  auto stablehlo = ReadStablehlo(
      "func.func @main(%a: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {\n"
      "  %r = stablehlo.fft %a, type = FFT, length = [5] : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>\n"
      "  func.return %r : tensor<4xcomplex<f32>>\n}\n",
      false);
  ASSERT_FALSE(stablehlo.ok());
  EXPECT_NE(stablehlo.status().message().find("c64[4]"), std::string::npos) << stablehlo.status().message();
}

// Both StableHLO forms reach the same op.
TEST_F(Fft, StablehloPrettyAndGenericForms) {
  for (const char* op :
       {"%r = stablehlo.fft %a, type = RFFT, length = [8] : (tensor<2x8xf32>) -> tensor<2x5xcomplex<f32>>",
        "%r = \"stablehlo.fft\"(%a) {fft_type = #stablehlo<fft_type RFFT>, fft_length = array<i64: 8>} : "
        "(tensor<2x8xf32>) -> tensor<2x5xcomplex<f32>>"}) {
    auto module = ReadStablehlo(std::string("func.func @main(%a: tensor<2x8xf32>) -> tensor<2x5xcomplex<f32>> {\n  ") + op +
                                    "\n  func.return %r : tensor<2x5xcomplex<f32>>\n}\n",
                                false);
    ASSERT_TRUE(module.ok()) << module.status().ToString();
    Literal x = UniformLiteral(module->module->entry()->parameters()[0]->shape, 41);
    StatusOr<Literal> want = EvaluateModule(*module->module, {x});
    StatusOr<Literal> got = CompileAndRun(*module->module, {x});
    ASSERT_TRUE(got.ok() && want.ok()) << got.status().ToString();
    ExpectWithinFftBound(*got, *want, 1, op);
  }
}

// Without shaderFloat64 (a phone; planned so here on any device) c128
// transforms run as products with DFT matrices on software doubles
// (plan/dft_expansion.h), within the same bound; past kMaxDftLength as the
// four-step split (2048 = 32 x 64, 1042 = 2 x 521 with a prime factor, and a 2-D
// transform with one long dim); a prime length past it is an error naming
// the op, the type and the feature.
TEST_F(Fft, WithoutF64DoubleTransformsRunAsProducts) {
  TargetFeatures phone = TestDevice().target();
  phone.float64 = false;
  struct Case {
    std::string text;
    int transformed;
  };
  const std::vector<Case> cases = {{FftModule("c128", {3, 8}, "c128", {3, 8}, "FFT", {8}), 1},
                                   {FftModule("c128", {2, 6, 5}, "c128", {2, 6, 5}, "IFFT", {6, 5}), 2},
                                   {FftModule("c128", {2, 3, 4}, "c128", {2, 3, 4}, "FFT", {2, 3, 4}), 3},
                                   {FftModule("f64", {2, 8}, "c128", {2, 5}, "RFFT", {8}), 1},
                                   {FftModule("c128", {4, 3}, "f64", {4, 4}, "IRFFT", {4, 4}), 2},
                                   {FftModule("c128", {2, 2048}, "c128", {2, 2048}, "FFT", {2048}), 1},
                                   {FftModule("c128", {1042}, "c128", {1042}, "IFFT", {1042}), 1},
                                   {FftModule("c128", {3, 1100}, "c128", {3, 1100}, "FFT", {3, 1100}), 2}};
  uint64_t seed = 300;
  for (const Case& c : cases) {
    auto module = ParseOrFail(c.text);
    ASSERT_TRUE(module);
    const Literal x = UniformLiteral(module->entry()->parameters()[0]->shape, ++seed);
    StatusOr<Literal> want = EvaluateModule(*module, {x});
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    auto exe = Executable::Compile(*module, TestDevice(), phone);
    ASSERT_TRUE(exe.ok()) << c.text << exe.status().ToString();
    auto got = (*exe)->Run({x});
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ExpectWithinFftBound(*got, *want, c.transformed, c.text);
  }
  auto module = ParseOrFail(FftModule("c128", {2, 4099}, "c128", {2, 4099}, "FFT", {4099}));
  ASSERT_TRUE(module);
  StatusOr<Program> plan = PlanModule(*module, phone);
  ASSERT_FALSE(plan.ok());
  for (const char* word : {"fft", "c128", "shaderFloat64", "4099"})
    EXPECT_NE(plan.status().message().find(word), std::string::npos) << plan.status().message();
}

}  // namespace
}  // namespace vkxla
