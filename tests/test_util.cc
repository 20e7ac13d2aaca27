#include "tests/test_util.h"

#include <cmath>
#include <cstring>

#include "frontends/hlo_text.h"
#include "frontends/stablehlo_reader.h"
#include "ir/float_formats.h"
#include "ops/op_traits.h"
#include "ops/evaluator.h"
#include "plan/planner.h"
#include "runtime/executable.h"
#include "runtime/vulkan_context.h"

namespace vkxla {

Device& TestDevice() {
  static std::unique_ptr<Device> device = [] {
    auto d = Device::Open();
    if (!d.ok()) ADD_FAILURE() << d.status().ToString();
    return std::move(d).value();
  }();
  return *device;
}

const std::vector<ElementType>& kAllTypes = ArrayElementTypes();

Scalar RandomScalar(ElementType t, std::mt19937_64& rng, Opcode op) {
  std::uniform_real_distribution<double> unit(-1, 1);
  const double specials[] = {0.0, -0.0, 1.0, -1.0, 0.5, INFINITY, -INFINITY, NAN, 3.0, 1e-3, 100.0};
  auto real = [&]() -> double {
    if (rng() % 8 == 0) return specials[rng() % 11];
    double scale = (op == Opcode::kExp || op == Opcode::kPower || op == Opcode::kCosh) ? 20 : 50;
    return unit(rng) * scale;
  };
  if (t == ElementType::kPred) return Scalar::Pred(rng() & 1);
  if (IsSignedInt(t)) {
    int64_t v = static_cast<int64_t>(rng());
    if (op == Opcode::kShiftLeft || op == Opcode::kShiftRightArithmetic || op == Opcode::kShiftRightLogical || op == Opcode::kPower)
      v = static_cast<int64_t>(rng() % (BitWidth(t) + 3)) - 1;
    return Scalar::Int(t, v);
  }
  if (IsUnsignedInt(t)) {
    uint64_t v = rng();
    if (op == Opcode::kShiftLeft || op == Opcode::kShiftRightArithmetic || op == Opcode::kShiftRightLogical || op == Opcode::kPower)
      v = rng() % (BitWidth(t) + 3);
    return Scalar::UInt(t, v);
  }
  if (IsComplex(t)) return Scalar::Complex(t, {unit(rng) * 4, unit(rng) * 4});
  Scalar x = Scalar::Float(t, real());
  // f8e8m0fnu's smallest value, 2^-127, is an f32 subnormal, which Vulkan
  // lets a device flush to zero in arithmetic: inputs stay normal.
  if (FloatEncodingOf(t) == FloatEncoding::kExponentOnly && x.re < std::ldexp(1.0, -126)) x = Scalar::Float(t, 1.0);
  return x;
}

// A random valid layout for `dims`: permuted minor_to_major, up to two tile
// levels, sometimes a '*'.
Layout RandomTiledLayout(const std::vector<int64_t>& dims, std::mt19937_64& rng) {
  Layout l = Layout::Descending(static_cast<int64_t>(dims.size()));
  std::shuffle(l.minor_to_major.begin(), l.minor_to_major.end(), rng);
  size_t rank = dims.size();
  const int levels = static_cast<int>(rng() % 3);
  for (int level = 0; level < levels; ++level) {
    Tile t;
    const size_t k = 1 + rng() % rank;
    for (size_t j = 0; j < k; ++j) t.dims.push_back(1 + static_cast<int64_t>(rng() % 5));
    if (k >= 2 && rng() % 3 == 0) t.dims[rng() % (k - 1)] = Tile::kCombine;
    size_t stars = 0;
    for (int64_t d : t.dims) stars += d == Tile::kCombine;
    l.tiles.push_back(t);
    rank = rank - stars + (k - stars);  // prefix + tile counts + tile sizes
  }
  return l;
}

Literal RandomLiteral(const Shape& shape, std::mt19937_64& rng, Opcode op) {
  Literal l(Shape(shape.element_type(), shape.dims()));
  for (int64_t i = 0; i < l.element_count(); ++i) l.Set(i, RandomScalar(shape.element_type(), rng, op));
  return l;
}

// Distance in units in the last place of type t (NaN matches NaN).
double UlpDistance(double a, double b, ElementType t) {
  if (std::isnan(a) && std::isnan(b)) return 0;
  if (std::isnan(a) || std::isnan(b)) return INFINITY;
  if (a == b) return 0;
  if (std::isinf(a) || std::isinf(b)) return INFINITY;
  int e;
  std::frexp(std::max(std::fabs(a), std::fabs(b)), &e);
  const int mbits = MantissaBits(t);
  const int min_exp = 1 - ExponentBias(t);  // the smallest normal exponent
  const double ulp = std::ldexp(1.0, std::max(e - 1, min_exp) - mbits);
  return std::fabs(a - b) / ulp;
}

bool IsTranscendental(Opcode op) { return AcceptsResultAccuracy(op) || op == Opcode::kPower || op == Opcode::kAtan2; }

// Tolerated error in ULP of the result type.
double Tolerance(Opcode op, ElementType t) {
  if (op == Opcode::kAbs) return 2;  // |z| of a complex z rounds a hypot
  if (!IsTranscendental(op) || op == Opcode::kSqrt) return 0;
  return ComplexComponentType(t) == ElementType::kF64 ? 64 : 4;
}

void ExpectHloMatchesReferenceOn(const TargetFeatures& target, const std::string& hlo, const std::vector<Literal>& args, Opcode op,
                                 const std::string& what) {
  auto m = ParseAndVerifyHlo(hlo);
  ASSERT_TRUE(m.ok()) << what << ": " << m.status().ToString();
  auto want = EvaluateModule(**m, args);
  ASSERT_TRUE(want.ok()) << what << ": " << want.status().ToString();
  auto exe = Executable::Compile(**m, TestDevice(), target);
  ASSERT_TRUE(exe.ok()) << what << ": " << exe.status().ToString();
  auto got = (*exe)->Run(args);
  ASSERT_TRUE(got.ok()) << what << ": " << got.status().ToString();
  // Where the target flushes f32 subnormals, the reference on flushed
  // arguments passes too (results into f32's subnormal range: zeros).
  auto want_flushed = EvaluateOnFlushedArguments(target, **m, args, *want);
  ASSERT_TRUE(want_flushed.ok()) << what << ": " << want_flushed.status().ToString();
  const std::vector<const Literal*> got_leaves = got->Leaves(), want_leaves = want->Leaves(), flushed_leaves = want_flushed->Leaves();
  ASSERT_EQ(got_leaves.size(), want_leaves.size()) << what;
  for (size_t k = 0; k < got_leaves.size(); ++k)
    ExpectCloseOnTarget(target, *got_leaves[k], *want_leaves[k], *flushed_leaves[k], op, what);
}

namespace {

bool ElementsClose(const Scalar& g, const Scalar& w, ElementType t, Opcode op) {
  if (IsFloat(t)) return UlpDistance(g.re, w.re, t) <= Tolerance(op, t);
  if (IsComplex(t)) {
    const ElementType part = ComplexComponentType(t);
    const double eps = part == ElementType::kF64 ? 1e-12 : 2e-5;
    auto close = [&](double a, double b) {
      if (a == b || (std::isnan(a) && std::isnan(b))) return true;
      if (std::isinf(a) || std::isinf(b)) return a == b;
      return std::fabs(a - b) <= eps * (1 + std::abs(w.c()));
    };
    return close(g.re, w.re) && close(g.im, w.im);
  }
  return g.Bits() == w.Bits();
}

// Floats computed in f32 whose subnormals a flushing device drops: f32,
// and those sharing its exponent range (bf16, f8e8m0fnu's 2^-127).
bool ComputedInF32(ElementType t) { return IsFloat(t) && t != ElementType::kF64; }

Scalar Flushed(const Scalar& x, ElementType t) {
  if (!ComputedInF32(t) || !(std::fabs(x.re) < std::ldexp(1.0, -126)) || x.re == 0) return x;
  return Scalar::Float(t, std::signbit(x.re) ? -0.0 : 0.0);
}

void ExpectElementsClose(const Literal& got, const Literal& want, const Literal* want_flushed, Opcode op,
                         const std::string& what) {
  ASSERT_TRUE(got.shape().Compatible(want.shape())) << what << ": " << got.shape().ToString() << " vs " << want.shape().ToString();
  if (want.shape().IsTuple()) {
    for (size_t k = 0; k < want.tuple_elements().size(); ++k)
      ExpectElementsClose(got.tuple_elements()[k], want.tuple_elements()[k], want_flushed ? &want_flushed->tuple_elements()[k] : nullptr,
                          op, what + " {" + std::to_string(k) + "}");
    return;
  }
  const ElementType t = want.shape().element_type();
  int failures = 0;
  for (int64_t i = 0; i < want.element_count() && failures < 5; ++i) {
    const Scalar g = got.Get(i), w = want.Get(i);
    bool ok = ElementsClose(g, w, t, op);
    if (!ok && want_flushed) {
      const Scalar wf = want_flushed->Get(i);
      ok = ElementsClose(g, wf, t, op) || ElementsClose(Flushed(g, t), Flushed(w, t), t, op) ||
           ElementsClose(Flushed(g, t), Flushed(wf, t), t, op);
    }
    if (!ok) {
      ++failures;
      ADD_FAILURE() << what << " element " << i << ": device " << g.ToString() << ", reference " << w.ToString();
    }
  }
}

}  // namespace

void ExpectClose(const Literal& got, const Literal& want, Opcode op, const std::string& what) {
  ExpectElementsClose(got, want, nullptr, op, what);
}

Literal FlushedWhereTheTargetFlushes(const TargetFeatures& target, const Literal& x) {
  if (target.f32_subnormals_kept || x.shape().IsTuple() || !ComputedInF32(x.shape().element_type())) return x;
  Literal y = x;
  for (int64_t i = 0; i < y.element_count(); ++i) y.Set(i, Flushed(y.Get(i), y.shape().element_type()));
  return y;
}

StatusOr<Literal> EvaluateOnFlushedArguments(const TargetFeatures& target, const Module& m, const std::vector<Literal>& args,
                                             const Literal& want) {
  if (target.f32_subnormals_kept) return want;  // not consulted there
  std::vector<Literal> flushed;
  for (const Literal& a : args) flushed.push_back(FlushedWhereTheTargetFlushes(target, a));
  return EvaluateModule(m, flushed);
}

void ExpectCloseOnTarget(const TargetFeatures& target, const Literal& got, const Literal& want, const Literal& want_flushed,
                         Opcode op, const std::string& what) {
  ExpectElementsClose(got, want, target.f32_subnormals_kept ? nullptr : &want_flushed, op, what);
}



Literal RandomBitPatterns(ElementType t, int64_t n, std::mt19937_64& rng, int subnormal_share) {
  const int bits = BitWidth(t);
  Literal x(Shape(t, {n}));
  for (int64_t i = 0; i < n; ++i) {
    uint64_t b = rng();
    if (bits < 64) b &= (uint64_t{1} << bits) - 1;
    if (IsSignedInt(t)) {
      x.Set(i, Scalar::Int(t, static_cast<int64_t>(b << (64 - bits)) >> (64 - bits)));
    } else if (!IsFloat(t)) {
      x.Set(i, Scalar::UInt(t, b));
    } else {
      if (subnormal_share > 0 && i % subnormal_share == 0)
        b &= (uint64_t{1} << (bits - 1)) | ((uint64_t{1} << (MantissaBits(t) + 1)) - 1);
      Literal one(Shape(t, {1}));  // one element's bytes, low first
      std::memcpy(one.bytes().data(), &b, std::max(1, bits / 8));
      x.Set(i, one.Get(0));
    }
  }
  return x;
}

// Runs `module` on the device and on the reference evaluator with random
// arguments; returns the device result.
Literal RunAndCompare(const Module& module, uint64_t seed, int expected_kernels) {
  std::mt19937_64 rng(seed);
  std::vector<Literal> args;
  for (const Shape& p : module.EntryProgramShape().parameters) args.push_back(RandomLiteral(p, rng, Opcode::kAdd));
  return RunAndCompareWith(module, args, expected_kernels);
}

// Random values whose sums are exact in any order (quarters up to 50,
// with the random specials), so a sum the device takes in its own order
// still matches the reference bit for bit.
Literal ExactSumLiteral(const Shape& shape, std::mt19937_64& rng) {
  const ElementType t = shape.element_type();
  Literal l = RandomLiteral(shape, rng, Opcode::kAdd);
  if (t == ElementType::kF32) {
    for (int64_t i = 0; i < l.element_count(); ++i) {
      const double v = l.Get(i).re;
      if (std::isfinite(v)) l.Set(i, Scalar::Float(t, std::round(v * 4) / 4));
    }
  } else if (IsComplex(t)) {
    for (int64_t i = 0; i < l.element_count(); ++i) l.Set(i, Scalar::Complex(t, {double(rng() % 2), double(rng() % 2)}));
  } else if (IsFloat(t)) {
    for (int64_t i = 0; i < l.element_count(); ++i) l.Set(i, Scalar::Float(t, double(rng() % 2)));
  }
  return l;
}

Literal RandomIndices(const Shape& shape, int64_t lo, int64_t hi, std::mt19937_64& rng) {
  Literal l(shape);
  std::uniform_int_distribution<int64_t> d(lo, hi);
  for (int64_t i = 0; i < l.element_count(); ++i) l.Set(i, Scalar::Int(ElementType::kS64, d(rng)));
  return l;
}

Literal RunAndCompareWith(const Module& module, const std::vector<Literal>& args, int expected_kernels,
                          const TargetFeatures* target) {
  auto want = EvaluateModule(module, args);
  EXPECT_TRUE(want.ok()) << want.status().ToString();
  auto exe = Executable::Compile(module, TestDevice(), target ? *target : TestDevice().target());
  EXPECT_TRUE(exe.ok()) << exe.status().ToString();
  if (!exe.ok() || !want.ok()) return Literal();
  if (expected_kernels >= 0) {
    EXPECT_EQ((*exe)->kernel_count(), expected_kernels);
  }
  auto got = (*exe)->Run(args);
  EXPECT_TRUE(got.ok()) << got.status().ToString();
  if (!got.ok()) return Literal();
  ExpectClose(*got, *want, Opcode::kAdd, module.name());
  return *got;
}

void ExpectNoValidationMessages() {
  auto ctx = VulkanContext::Get();
  ASSERT_TRUE(ctx.ok());
  EXPECT_EQ((*ctx)->validation_message_count(), 0) << "validation: " << (*ctx)->last_validation_message();
}

StatusOr<Literal> CompileAndRun(const Module& module, const std::vector<Literal>& args) {
  VKXLA_ASSIGN_OR_RETURN(std::unique_ptr<Executable> exe, Executable::Compile(module, TestDevice()));
  return exe->Run(args);
}

std::unique_ptr<Module> ParseOrFail(const std::string& text) {
  auto m = ParseAndVerifyHlo(text);
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return m.ok() ? std::move(*m) : nullptr;
}

std::string RunHloText(const std::string& computations, const std::string& entry_body) {
  auto m = ParseAndVerifyHlo("HloModule m\n" + computations + "ENTRY %e {\n" + entry_body + "}\n");
  if (!m.ok()) return m.status().ToString();
  auto r = CompileAndRun(**m, {});
  return r.ok() ? r->ValuesToString() : r.status().ToString();
}

void ExpectHloError(const std::string& computations, const std::string& entry_body, const std::vector<std::string>& words) {
  auto m = ParseAndVerifyHlo("HloModule bad\n" + computations + "ENTRY %e {\n" + entry_body + "}\n");
  ASSERT_FALSE(m.ok()) << entry_body;
  for (const std::string& w : words) EXPECT_NE(m.status().message().find(w), std::string::npos) << m.status().message();
}

std::vector<TargetFeatures> KernelShapeTargets() {
  TargetFeatures gpu = TestDevice().target();
  gpu.cpu = false;
  TargetFeatures phone = gpu;
  phone.max_shared_memory_bytes = 16384;
  return {TestDevice().target(), gpu, phone};
}

std::vector<SortConfig> SortConfigsOf(const Module& module, const TargetFeatures& target) {
  std::vector<SortConfig> configs;
  StatusOr<Program> p = PlanModule(module, target);
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  if (p.ok())
    for (const FusionGroup& g : p->groups)
      if (const auto* c = std::get_if<SortConfig>(&g.config)) configs.push_back(*c);
  return configs;
}

std::string RunRefined(const std::string& text, const std::vector<Literal>& args) {
  std::vector<Shape> shapes;
  for (const Literal& a : args) shapes.push_back(a.shape());
  StatusOr<StablehloProgram> p = ReadStablehlo(text, false, 1, {}, &shapes);
  if (!p.ok()) return p.status().ToString();
  StatusOr<Literal> want = EvaluateModule(*p->module, args);
  StatusOr<Literal> got = CompileAndRun(*p->module, args);
  if (!got.ok()) return got.status().ToString();
  EXPECT_TRUE(want.ok()) << want.status().ToString();
  if (want.ok()) {  // the reference computes in double: close, not equal
    const std::vector<const Literal*> g = got->Leaves(), w = want->Leaves();
    EXPECT_EQ(g.size(), w.size());
    for (size_t i = 0; i < g.size() && i < w.size(); ++i) ExpectClose(*g[i], *w[i], Opcode::kTanh, "result " + std::to_string(i));
  }
  return got->shape().ToString(false) + " " + got->ValuesToString();
}

}  // namespace vkxla
