#include "tests/random_program.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <random>
#include <set>

#include "ir/element_type.h"
#include "ir/layout.h"
#include "tests/test_util.h"

namespace vkxla {
namespace {

// Elements an intermediate value may hold: small enough that a program's
// kernels compile and run in moments on a CPU driver.
constexpr int64_t kMaxElements = 2048;
constexpr int kMaxParameters = 5;

// Each value knows a bound on its finite magnitudes and whether its finite
// floats are all integers: a sum (reduce, dot, window) is taken only where
// every partial sum is an exact integer of the type, so that the device's
// order of additions cannot change it.
struct Value {
  std::string name;
  ElementType type;
  std::vector<int64_t> dims;
  double bound = 0;
  bool integral = true;
  // Its floats' bits are the arguments' own (moved, not computed): the
  // bits of a NaN an op makes (its sign, its payload) are the device's
  // choice, so only raw floats are bitcast or sorted in the total order.
  bool raw = false;
};

int64_t Elements(const std::vector<int64_t>& dims) {
  return std::accumulate(dims.begin(), dims.end(), int64_t{1}, std::multiplies<int64_t>());
}

// The largest integer up to which every integer of a float type is exact
// (integers wrap instead: any order of their additions gives one result).
double ExactIntegerLimit(ElementType t) {
  switch (t) {
    case ElementType::kF16: return 2048;
    case ElementType::kBF16: return 256;
    case ElementType::kF8E4M3FN: return 16;
    case ElementType::kF8E5M2: return 8;
    case ElementType::kF32: return 16777216;
    case ElementType::kF64: return 9007199254740992.0;
    default: return INFINITY;
  }
}

std::string List(const std::vector<int64_t>& v, const char* sep = ",") {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + std::to_string(v[i]);
  return s;
}

class Generator {
 public:
  explicit Generator(uint64_t seed) : rng_(seed) {}

  RandomProgram Run() {
    const int ops = 3 + static_cast<int>(rng_() % 10);
    NewParameter(RandomType(), RandomDims());
    for (int i = 0; i < ops; ++i) Step();
    // The result: the last value, sometimes with another beside it, in
    // layouts of their own.
    std::vector<const Value*> results = {&values_.back()};
    if (values_.size() > 1 && Chance(3)) results.push_back(&values_[rng_() % (values_.size() - 1)]);
    std::string root;
    if (results.size() == 1 && Chance(2)) {
      const Value& r = *results[0];
      root = "  ROOT result = " + ShapeText(r.type, r.dims, RandomLayout(r.dims)) + " copy(" + r.name + ")\n";
    } else {
      std::string shape = "(", operands;
      for (size_t i = 0; i < results.size(); ++i) {
        shape += (i ? ", " : "") + ShapeText(results[i]->type, results[i]->dims, RandomLayout(results[i]->dims));
        operands += (i ? ", " : "") + results[i]->name;
      }
      root = "  ROOT result = " + shape + ") tuple(" + operands + ")\n";
    }
    RandomProgram p;
    p.hlo = "HloModule random_program\n\n" + computations_ + "ENTRY main {\n" + parameters_ + body_ + root + "}\n";
    p.args = std::move(args_);
    return p;
  }

 private:
  bool Chance(int one_in) { return rng_() % one_in == 0; }
  int64_t Uniform(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(rng_() % static_cast<uint64_t>(hi - lo + 1)); }

  ElementType RandomType() {
    static const ElementType kTypes[] = {ElementType::kF32, ElementType::kF32, ElementType::kF32, ElementType::kS32,
                                         ElementType::kS32, ElementType::kF16, ElementType::kBF16, ElementType::kU8,
                                         ElementType::kS8,  ElementType::kU32, ElementType::kS64, ElementType::kF64,
                                         ElementType::kS16, ElementType::kU16, ElementType::kPred, ElementType::kU64,
                                         ElementType::kS4,  ElementType::kU4,  ElementType::kF8E4M3FN, ElementType::kF8E5M2};
    return kTypes[rng_() % std::size(kTypes)];
  }

  std::vector<int64_t> RandomDims() {
    std::vector<int64_t> dims;
    const int rank = static_cast<int>(rng_() % 5);
    for (int d = 0; d < rank; ++d) dims.push_back(Chance(4) ? 1 : Uniform(2, 9));
    while (Elements(dims) > kMaxElements / 4) {
      int64_t& largest = *std::max_element(dims.begin(), dims.end());
      largest = (largest + 1) / 2;
    }
    return dims;
  }

  // Row-major mostly; otherwise a permuted order, sometimes tiled (the
  // layout tests' random tiles).
  Layout RandomLayout(const std::vector<int64_t>& dims) {
    const int pick = static_cast<int>(rng_() % 8);
    if (pick < 4 || dims.empty()) return Layout::Descending(static_cast<int64_t>(dims.size()));
    if (pick < 6) {
      Layout l = Layout::Descending(static_cast<int64_t>(dims.size()));
      std::shuffle(l.minor_to_major.begin(), l.minor_to_major.end(), rng_);
      return l;
    }
    return RandomTiledLayout(dims, rng_);
  }

  static std::string ShapeText(ElementType t, const std::vector<int64_t>& dims, const Layout& layout) {
    return std::string(ElementTypeName(t)) + "[" + List(dims) + "]" + layout.ToString();
  }
  static std::string ShapeText(ElementType t, const std::vector<int64_t>& dims) {
    return std::string(ElementTypeName(t)) + "[" + List(dims) + "]";
  }

  // A new instruction `rhs` of shape (t, dims); returns its value.
  const Value& Emit(ElementType t, const std::vector<int64_t>& dims, const std::string& rhs, double bound, bool integral) {
    Value v{"v" + std::to_string(values_.size()), t, dims, std::min(bound, BoundOfType(t)), integral};
    if (!IsFloat(t)) v.integral = true;
    // Intermediate values sometimes carry a layout (where they are kept in
    // memory, it is theirs).
    const std::string shape = Chance(6) ? ShapeText(t, dims, RandomLayout(dims)) : ShapeText(t, dims);
    body_ += "  " + v.name + " = " + shape + " " + rhs + "\n";
    values_.push_back(v);
    return values_.back();
  }

  // The value just emitted moves elements of raw values only.
  void KeepRaw(bool raw) { values_.back().raw = raw; }

  static double BoundOfType(ElementType t) {
    if (t == ElementType::kPred) return 1;
    if (IsSignedInt(t)) return std::ldexp(1.0, BitWidth(t) - 1);
    if (IsUnsignedInt(t)) return std::ldexp(1.0, BitWidth(t)) - 1;
    return INFINITY;
  }

  // Small integers (and, for floats, the specials now and then): results
  // stay exact where the program sums them.
  Scalar RandomElement(ElementType t) {
    if (t == ElementType::kPred) return Scalar::Pred(rng_() & 1);
    if (IsUnsignedInt(t)) return Scalar::UInt(t, rng_() % 17);
    if (IsSignedInt(t)) return Scalar::Int(t, Uniform(-8, 8));
    if (Chance(16)) {
      const double specials[] = {NAN, INFINITY, -INFINITY, -0.0};
      return Scalar::Float(t, specials[rng_() % 4]);
    }
    return Scalar::Float(t, static_cast<double>(Uniform(-8, 8)));
  }

  const Value& NewParameter(ElementType t, const std::vector<int64_t>& dims) {
    Literal arg(Shape(t, dims));
    for (int64_t i = 0; i < arg.element_count(); ++i) arg.Set(i, RandomElement(t));
    return NewParameter(std::move(arg), IsUnsignedInt(t) ? 16.0 : 8.0);
  }

  // Start indices for gather and scatter: s32[batch, dims.size()], each
  // within [-1, dims[d]] (one past either end now and then: clamped or
  // skipped, as the op says).
  const Value& NewIndices(int64_t batch, const std::vector<int64_t>& dims, const std::vector<int64_t>& window) {
    Literal arg(Shape(ElementType::kS32, {batch, static_cast<int64_t>(dims.size())}));
    for (int64_t b = 0; b < batch; ++b)
      for (size_t d = 0; d < dims.size(); ++d)
        arg.Set(b * static_cast<int64_t>(dims.size()) + static_cast<int64_t>(d),
                Scalar::Int(ElementType::kS32, Chance(8) ? Uniform(-1, dims[d]) : Uniform(0, dims[d] - window[d])));
    return NewParameter(std::move(arg), INFINITY);
  }

  const Value& NewParameter(Literal arg, double bound) {
    const int index = static_cast<int>(args_.size());
    const ElementType t = arg.shape().element_type();
    const std::vector<int64_t> dims = arg.shape().dims();
    args_.push_back(std::move(arg));
    Value v{"p" + std::to_string(index), t, dims, bound, true, true};
    parameters_ += "  " + v.name + " = " + ShapeText(t, dims, RandomLayout(dims)) + " parameter(" + std::to_string(index) + ")\n";
    values_.push_back(v);
    return values_.back();
  }

  std::string Constant(ElementType t, const std::string& text) {
    const std::string name = "c" + std::to_string(constants_++);
    body_ += "  " + name + " = " + ShapeText(t, {}) + " constant(" + text + ")\n";
    return name;
  }
  // A small integer, or an infinity.
  std::string Constant(ElementType t, double v) {
    if (t == ElementType::kPred) return Constant(t, v != 0 ? "true" : "false");
    if (std::isinf(v)) return Constant(t, v > 0 ? "inf" : "-inf");
    return Constant(t, std::to_string(static_cast<int64_t>(v)));
  }

  // A value of the same type and dims as `a`: another one where there is
  // one, else a broadcast constant.
  Value SameShape(const Value& a) {
    std::vector<const Value*> same;
    for (const Value& v : values_)
      if (v.type == a.type && v.dims == a.dims) same.push_back(&v);
    if (same.size() > 1 && !Chance(3)) return *same[rng_() % same.size()];
    const double c = a.type == ElementType::kPred ? double(rng_() & 1) : IsUnsignedInt(a.type) ? Uniform(0, 5) : Uniform(-4, 4);
    return Emit(a.type, a.dims, "broadcast(" + Constant(a.type, c) + "), dimensions={}", std::abs(c), true);
  }

  // Operands: recent values mostly, so chains grow deep and fuse.
  const Value& PickValue() {
    const size_t n = values_.size();
    if (Chance(3)) return values_[rng_() % n];
    return values_[n - 1 - rng_() % std::min<size_t>(n, 3)];
  }

  void Step() {
    const Value a = PickValue();
    switch (rng_() % 34) {
      case 0: case 1: case 2: Unary(a); break;
      case 3: case 4: case 5: Binary(a); break;
      case 6: Compare(a); break;
      case 7: Convert(a); break;
      case 8: Broadcast(a); break;
      case 9: Transpose(a); break;
      case 10: Reshape(a); break;
      case 11: Slice(a); break;
      case 12: Pad(a); break;
      case 13: Concatenate(a); break;
      case 14: Reverse(a); break;
      case 15: DynamicSlice(a); break;
      case 16: Reduce(a); break;
      case 17: ReduceWindow(a); break;
      case 18: Dot(a); break;
      case 19: Other(a); break;
      case 20: Gather(a); break;
      case 21: Scatter(a); break;
      case 22: Sort(a); break;
      case 23: Convolution(a); break;
      case 24: While(a); break;
      case 25: Conditional(a); break;
      case 26: DynamicReduce(a); break;
      case 27: FloatBits(a); break;
      case 28: ComplexParts(a); break;
      case 29: ArgMax(a); break;
      case 30: Map(a); break;
      case 31: Called(a); break;
      case 32: TopK(a); break;
      default: SelectAndScatter(a); break;
    }
  }

  void Unary(const Value& a) {
    std::vector<std::string> ops = {"negate", "abs"};
    if (IsFloat(a.type)) ops = {"negate", "abs", "floor", "ceil", "sign", "round-nearest-even", "round-nearest-afz", "sqrt"};
    else if (a.type == ElementType::kPred) ops = {"not"};
    else if (IsUnsignedInt(a.type)) ops = {"negate", "not", "popcnt", "count-leading-zeros"};
    else ops = {"negate", "abs", "not", "popcnt", "count-leading-zeros", "sign"};
    const std::string op = ops[rng_() % ops.size()];
    double bound = a.bound + 1;
    bool integral = a.integral;
    if (op == "sqrt") bound = std::sqrt(a.bound) + 1, integral = false;
    if (op == "sign") bound = 1;
    if (op == "not" || op == "popcnt" || op == "count-leading-zeros") bound = BoundOfType(a.type);
    Emit(a.type, a.dims, op + "(" + a.name + ")", bound, integral);
  }

  void Binary(const Value& a) {
    const Value b = SameShape(a);
    std::vector<std::string> ops;
    if (a.type == ElementType::kPred) ops = {"and", "or", "xor", "maximum", "minimum"};
    else if (IsFloat(a.type)) ops = {"add", "subtract", "multiply", "maximum", "minimum", "divide", "remainder", "add", "multiply"};
    else ops = {"add", "subtract", "multiply", "maximum", "minimum", "divide", "remainder", "and", "or", "xor",
                "shift-left", "shift-right-logical", "shift-right-arithmetic", "power"};
    const std::string op = ops[rng_() % ops.size()];
    double bound = std::max(a.bound, b.bound);
    bool integral = a.integral && b.integral;
    if (op == "add" || op == "subtract") bound = a.bound + b.bound;
    if (op == "multiply") bound = a.bound * b.bound;
    if (op == "divide" && IsFloat(a.type)) bound = INFINITY, integral = false;
    if (op == "and" || op == "or" || op == "xor" || op == "shift-left" || op == "shift-right-logical" ||
        op == "shift-right-arithmetic" || op == "power")
      bound = BoundOfType(a.type);
    Emit(a.type, a.dims, op + "(" + a.name + ", " + b.name + ")", bound, integral);
  }

  void Compare(const Value& a) {
    const Value b = SameShape(a);
    static const char* kDirections[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
    const Value c = Emit(ElementType::kPred, a.dims,
                         "compare(" + a.name + ", " + b.name + "), direction=" + kDirections[rng_() % 6], 1, true);
    if (Chance(2)) return;
    // A select on it, or a clamp.
    if (Chance(3) && a.type != ElementType::kPred) {
      const Value lo = SameShape(a), hi = SameShape(a);
      Emit(a.type, a.dims, "clamp(" + lo.name + ", " + a.name + ", " + hi.name + ")", std::max({a.bound, lo.bound, hi.bound}),
           a.integral && lo.integral && hi.integral);
      return;
    }
    Emit(a.type, a.dims, "select(" + c.name + ", " + a.name + ", " + b.name + ")", std::max(a.bound, b.bound),
         a.integral && b.integral);
    KeepRaw(a.raw && b.raw);
  }

  void Convert(const Value& a) {
    if (Chance(4) && (a.raw || !IsFloat(a.type))) {
      // Bits of a float as an integer of its width.
      ElementType to = ElementType::kInvalid;
      if (a.type == ElementType::kF32) to = Chance(2) ? ElementType::kS32 : ElementType::kU32;
      if (a.type == ElementType::kF64) to = ElementType::kS64;
      if (a.type == ElementType::kF16 || a.type == ElementType::kBF16) to = ElementType::kU16;
      if (a.type == ElementType::kS32) to = ElementType::kU32;
      if (a.type == ElementType::kF8E4M3FN || a.type == ElementType::kF8E5M2) to = ElementType::kU8;
      if (a.type == ElementType::kS4) to = ElementType::kU4;
      if (to != ElementType::kInvalid) {
        Emit(to, a.dims, "bitcast-convert(" + a.name + ")", BoundOfType(to), true);
        return;
      }
    }
    const ElementType to = RandomType();
    double bound = a.bound;
    if (to == ElementType::kPred) bound = 1;
    Emit(to, a.dims, "convert(" + a.name + ")", bound, a.integral || !IsFloat(to));
    // A float converted to an integer is truncated: integral either way.
  }

  void Broadcast(const Value& a) {
    std::vector<int64_t> dims = a.dims;
    std::vector<bool> is_new(dims.size(), false);
    const int extra = 1 + static_cast<int>(rng_() % 2);
    for (int i = 0; i < extra && dims.size() < 5; ++i) {
      const size_t at = rng_() % (dims.size() + 1);
      dims.insert(dims.begin() + static_cast<std::ptrdiff_t>(at), Uniform(1, 5));
      is_new.insert(is_new.begin() + static_cast<std::ptrdiff_t>(at), true);
    }
    if (Elements(dims) > kMaxElements) return;
    std::vector<int64_t> mapping;
    for (size_t d = 0; d < dims.size(); ++d)
      if (!is_new[d]) mapping.push_back(static_cast<int64_t>(d));
    Emit(a.type, dims, "broadcast(" + a.name + "), dimensions={" + List(mapping) + "}", a.bound, a.integral);
    KeepRaw(a.raw);
  }

  void Transpose(const Value& a) {
    if (a.dims.size() < 2) return;
    std::vector<int64_t> perm(a.dims.size());
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng_);
    std::vector<int64_t> dims;
    for (int64_t p : perm) dims.push_back(a.dims[p]);
    Emit(a.type, dims, "transpose(" + a.name + "), dimensions={" + List(perm) + "}", a.bound, a.integral);
    KeepRaw(a.raw);
  }

  void Reshape(const Value& a) {
    // The element count's prime factors dealt out over up to four dims.
    int64_t n = Elements(a.dims);
    std::vector<int64_t> factors;
    for (int64_t f = 2; f * f <= n; ++f)
      while (n % f == 0) factors.push_back(f), n /= f;
    if (n > 1) factors.push_back(n);
    std::vector<int64_t> dims(1 + rng_() % 4, 1);
    for (int64_t f : factors) dims[rng_() % dims.size()] *= f;
    Emit(a.type, dims, "reshape(" + a.name + ")", a.bound, a.integral);
    KeepRaw(a.raw);
  }

  void Slice(const Value& a) {
    if (a.dims.empty()) return;
    std::vector<int64_t> dims;
    std::string spec;
    for (size_t d = 0; d < a.dims.size(); ++d) {
      const int64_t start = Uniform(0, a.dims[d] - 1), limit = Uniform(start + 1, a.dims[d]), stride = Uniform(1, 3);
      dims.push_back((limit - start + stride - 1) / stride);
      spec += std::string(d ? ", " : "") + "[" + std::to_string(start) + ":" + std::to_string(limit) + ":" + std::to_string(stride) + "]";
    }
    Emit(a.type, dims, "slice(" + a.name + "), slice={" + spec + "}", a.bound, a.integral);
    KeepRaw(a.raw);
  }

  void Pad(const Value& a) {
    if (a.dims.empty()) return;
    std::vector<int64_t> dims;
    std::string spec;
    for (size_t d = 0; d < a.dims.size(); ++d) {
      const int64_t interior = Chance(3) ? Uniform(1, 2) : 0;
      const int64_t base = a.dims[d] + (a.dims[d] - 1) * interior;
      int64_t lo = Uniform(-1, 3), hi = Uniform(-1, 3);
      if (base + lo + hi < 1) lo = hi = 0;
      dims.push_back(base + lo + hi);
      spec += std::string(d ? "x" : "") + std::to_string(lo) + "_" + std::to_string(hi) + (interior ? "_" + std::to_string(interior) : "");
    }
    if (Elements(dims) > kMaxElements) return;
    const double pv = a.type == ElementType::kPred ? 1 : IsUnsignedInt(a.type) ? 7 : -7;
    Emit(a.type, dims, "pad(" + a.name + ", " + Constant(a.type, pv) + "), padding=" + spec, std::max(a.bound, 7.0), a.integral);
    KeepRaw(a.raw);
  }

  void Concatenate(const Value& a) {
    if (a.dims.empty() || Elements(a.dims) * 3 > kMaxElements) return;
    const size_t d = rng_() % a.dims.size();
    std::vector<int64_t> other_dims = a.dims;
    other_dims[d] = Uniform(1, 4);
    const Value b = Chance(2) ? a : NewParameterOrSame(a.type, other_dims, a);
    std::vector<int64_t> dims = a.dims;
    dims[d] += b.dims[d];
    Emit(a.type, dims, "concatenate(" + a.name + ", " + b.name + "), dimensions={" + std::to_string(d) + "}",
         std::max(a.bound, b.bound), a.integral && b.integral);
    KeepRaw(a.raw && b.raw);
  }

  Value NewParameterOrSame(ElementType t, const std::vector<int64_t>& dims, const Value& fallback) {
    if (args_.size() >= kMaxParameters) return fallback;
    return NewParameter(t, dims);
  }

  void Reverse(const Value& a) {
    if (a.dims.empty()) return;
    std::vector<int64_t> dims;
    for (size_t d = 0; d < a.dims.size(); ++d)
      if (Chance(2)) dims.push_back(static_cast<int64_t>(d));
    if (dims.empty()) dims.push_back(0);
    Emit(a.type, a.dims, "reverse(" + a.name + "), dimensions={" + List(dims) + "}", a.bound, a.integral);
    KeepRaw(a.raw);
  }

  // Start indices as s32 constants, out of range now and then (clamped).
  std::string StartIndices(const std::vector<int64_t>& dims, const std::vector<int64_t>& sizes) {
    std::string s;
    for (size_t d = 0; d < dims.size(); ++d) s += ", " + Constant(ElementType::kS32, static_cast<double>(Uniform(-2, dims[d] - sizes[d] + 2)));
    return s;
  }

  void DynamicSlice(const Value& a) {
    if (a.dims.empty()) return;
    std::vector<int64_t> sizes;
    for (int64_t d : a.dims) sizes.push_back(Uniform(1, d));
    if (Chance(2) && args_.size() < kMaxParameters) {
      const Value u = NewParameter(a.type, sizes);
      Emit(a.type, a.dims, "dynamic-update-slice(" + a.name + ", " + u.name + StartIndices(a.dims, sizes) + ")",
           std::max(a.bound, u.bound), a.integral);
      KeepRaw(a.raw && u.raw);
      return;
    }
    Emit(a.type, sizes, "dynamic-slice(" + a.name + StartIndices(a.dims, sizes) + "), dynamic_slice_sizes={" + List(sizes) + "}",
         a.bound, a.integral);
    KeepRaw(a.raw);
  }

  // The reducer computation for (op, t), defined once.
  std::string Reducer(const std::string& op, ElementType t) {
    const std::string name = op + "_" + std::string(ElementTypeName(t));
    if (reducers_.insert(name).second) {
      const std::string s = ShapeText(t, {});
      computations_ += name + " {\n  x = " + s + " parameter(0)\n  y = " + s + " parameter(1)\n  ROOT r = " + s + " " + op +
                       "(x, y)\n}\n\n";
    }
    return name;
  }

  // add where every partial sum of `terms` terms stays exact, else max or
  // min; with the initial value of each.
  std::pair<std::string, std::string> ReduceOp(const Value& a, int64_t terms, double& bound) {
    const bool sum_exact = a.integral && a.bound * static_cast<double>(terms) <= ExactIntegerLimit(a.type);
    std::string op = a.type == ElementType::kPred ? (Chance(2) ? "and" : "or")
                     : sum_exact && !Chance(3)      ? "add"
                     : Chance(2)                    ? "maximum"
                                                    : "minimum";
    std::string init = a.type == ElementType::kPred ? (op == "and" ? "true" : "false") : "0";
    // f8e4m3fn has no infinities: its extremes are +-448.
    const std::string infinity = a.type == ElementType::kF8E4M3FN ? "448" : "inf";
    if (op == "maximum") init = IsFloat(a.type) ? "-" + infinity : std::to_string(IntegerMin(a.type));
    if (op == "minimum") init = IsFloat(a.type) ? infinity : std::to_string(IntegerMax(a.type));
    bound = op == "add" ? a.bound * static_cast<double>(terms) : a.bound;
    return {Reducer(op, a.type), Constant(a.type, init)};
  }

  void Reduce(const Value& a) {
    if (a.dims.empty()) return;
    std::vector<int64_t> reduced, dims;
    int64_t terms = 1;
    for (size_t d = 0; d < a.dims.size(); ++d) {
      if (Chance(2)) {
        reduced.push_back(static_cast<int64_t>(d));
        terms *= a.dims[d];
      } else {
        dims.push_back(a.dims[d]);
      }
    }
    if (reduced.empty()) reduced.push_back(static_cast<int64_t>(a.dims.size()) - 1), dims.pop_back(), terms = a.dims.back();
    double bound = 0;
    const auto [reducer, init] = ReduceOp(a, terms, bound);
    const Value r = Emit(a.type, dims, "reduce(" + a.name + ", " + init + "), dimensions={" + List(reduced) + "}, to_apply=" + reducer,
                         bound, a.integral);
    if (Chance(2)) return;
    // The result spread back over the rows and combined with them (x - max
    // x, x * sum x): what row kernels fuse, with later readers of both.
    std::vector<int64_t> kept;
    for (size_t d = 0; d < a.dims.size(); ++d)
      if (std::find(reduced.begin(), reduced.end(), static_cast<int64_t>(d)) == reduced.end()) kept.push_back(static_cast<int64_t>(d));
    // Sometimes a second statistic of the same rows first (a mean of
    // squares beside the mean: layer norm's sibling reduces), the two
    // combined on the rows' results.
    Value stat = r;
    if (a.type != ElementType::kPred && Chance(3)) {
      const Value square = Emit(a.type, a.dims, "multiply(" + a.name + ", " + a.name + ")", a.bound * a.bound, a.integral);
      double square_bound = 0;
      const auto [reducer2, init2] = ReduceOp(square, terms, square_bound);
      const Value r2 = Emit(a.type, dims, "reduce(" + square.name + ", " + init2 + "), dimensions={" + List(reduced) + "}, to_apply=" + reducer2,
                            square_bound, square.integral);
      stat = Emit(a.type, dims, std::string(Chance(2) ? "subtract" : "add") + "(" + r2.name + ", " + r.name + ")", r2.bound + r.bound,
                  r.integral && r2.integral);
    }
    const Value spread = Emit(a.type, a.dims, "broadcast(" + stat.name + "), dimensions={" + List(kept) + "}", stat.bound, stat.integral);
    const std::vector<std::string> ops = a.type == ElementType::kPred ? std::vector<std::string>{"and", "or", "xor"}
                                                                      : std::vector<std::string>{"subtract", "add", "multiply", "maximum"};
    const std::string op = ops[rng_() % ops.size()];
    const double combined = op == "multiply" ? a.bound * stat.bound : op == "maximum" ? std::max(a.bound, stat.bound) : a.bound + stat.bound;
    Emit(a.type, a.dims, op + "(" + (Chance(2) ? a.name : SameShape(a).name) + ", " + spread.name + ")", combined,
         a.integral && stat.integral);
  }

  void ReduceWindow(const Value& a) {
    if (a.dims.empty()) return;
    std::vector<int64_t> dims, size, stride, dilation;
    std::string pad;
    int64_t terms = 1;
    for (size_t d = 0; d < a.dims.size(); ++d) {
      const int64_t lo = Uniform(0, 1), hi = Uniform(0, 1), base = a.dims[d] + lo + hi;
      const int64_t s = Uniform(1, std::min<int64_t>(3, base)), st = Uniform(1, 2);
      size.push_back(s);
      stride.push_back(st);
      terms *= s;
      dims.push_back((base - s) / st + 1);
      pad += std::string(d ? "x" : "") + std::to_string(lo) + "_" + std::to_string(hi);
    }
    double bound = 0;
    const auto [reducer, init] = ReduceOp(a, terms, bound);
    Emit(a.type, dims,
         "reduce-window(" + a.name + ", " + init + "), window={size=" + List(size, "x") + " stride=" + List(stride, "x") +
             " pad=" + pad + "}, to_apply=" + reducer,
         std::max(bound, a.bound), a.integral);
  }

  void Dot(const Value& a) {
    if (a.dims.empty() || a.dims.size() > 3 || a.type == ElementType::kPred || args_.size() >= kMaxParameters) return;
    const int64_t c = static_cast<int64_t>(rng_() % a.dims.size());
    int64_t batch = -1;
    if (a.dims.size() > 1 && Chance(2)) {
      batch = static_cast<int64_t>(rng_() % a.dims.size());
      if (batch == c) batch = -1;
    }
    const int64_t k = a.dims[c], n = Chance(4) ? 0 : Uniform(1, 7);
    if (IsFloat(a.type) && !(a.integral && a.bound * 8 * static_cast<double>(k) <= ExactIntegerLimit(a.type))) return;
    // rhs: [batch] [k] [n] in a random order.
    std::vector<std::pair<char, int64_t>> rhs_dims = {{'k', k}};
    if (batch >= 0) rhs_dims.push_back({'b', a.dims[batch]});
    if (n > 0) rhs_dims.push_back({'n', n});
    std::shuffle(rhs_dims.begin(), rhs_dims.end(), rng_);
    std::vector<int64_t> rdims;
    int64_t rk = 0, rb = -1;
    for (size_t i = 0; i < rhs_dims.size(); ++i) {
      rdims.push_back(rhs_dims[i].second);
      if (rhs_dims[i].first == 'k') rk = static_cast<int64_t>(i);
      if (rhs_dims[i].first == 'b') rb = static_cast<int64_t>(i);
    }
    std::vector<int64_t> out;
    if (batch >= 0) out.push_back(a.dims[batch]);
    for (size_t d = 0; d < a.dims.size(); ++d)
      if (static_cast<int64_t>(d) != c && static_cast<int64_t>(d) != batch) out.push_back(a.dims[d]);
    if (n > 0) out.push_back(n);
    if (Elements(out) > kMaxElements) return;
    const Value b = NewParameter(a.type, rdims);
    std::string dnums = "lhs_contracting_dims={" + std::to_string(c) + "}, rhs_contracting_dims={" + std::to_string(rk) + "}";
    if (batch >= 0) dnums = "lhs_batch_dims={" + std::to_string(batch) + "}, rhs_batch_dims={" + std::to_string(rb) + "}, " + dnums;
    const Value product = Emit(a.type, out, "dot(" + a.name + ", " + b.name + "), " + dnums, a.bound * b.bound * static_cast<double>(k),
                               a.integral);
    if (out.empty() || Chance(2) || args_.size() >= kMaxParameters) return;
    // An epilogue: a bias along the last dim, now and then a relu, and now
    // and then a residual that reads the product again.
    const int64_t last = static_cast<int64_t>(out.size()) - 1;
    const Value bias = NewParameter(a.type, {out.back()});
    const Value spread = Emit(a.type, out, "broadcast(" + bias.name + "), dimensions={" + std::to_string(last) + "}", bias.bound, bias.integral);
    Value y = Emit(a.type, out, "add(" + product.name + ", " + spread.name + ")", product.bound + bias.bound, product.integral && bias.integral);
    if (Chance(2)) {
      const Value zero = Emit(a.type, out, "broadcast(" + Constant(a.type, 0.0) + "), dimensions={}", 0, true);
      y = Emit(a.type, out, "maximum(" + y.name + ", " + zero.name + ")", y.bound, y.integral);
    }
    if (Chance(3)) Emit(a.type, out, "add(" + y.name + ", " + product.name + ")", y.bound + product.bound, y.integral && product.integral);
  }

  void Gather(const Value& a) {
    if (a.dims.empty() || args_.size() >= kMaxParameters) return;
    if (Chance(2)) return GeneralGather(a);
    // Indexed dims (start_index_map) in a random order; those with slice
    // size 1 are collapsed now and then.
    std::vector<int64_t> indexed;
    for (size_t d = 0; d < a.dims.size(); ++d)
      if (Chance(2)) indexed.push_back(static_cast<int64_t>(d));
    if (indexed.empty()) indexed.push_back(0);
    std::shuffle(indexed.begin(), indexed.end(), rng_);
    std::vector<int64_t> sizes, collapsed, index_dims, window;
    for (size_t d = 0; d < a.dims.size(); ++d) sizes.push_back(Uniform(1, a.dims[d]));
    for (int64_t d : indexed) {
      if (Chance(2)) sizes[d] = 1;
      if (sizes[d] == 1 && Chance(2)) collapsed.push_back(d);
      index_dims.push_back(a.dims[d]);
      window.push_back(sizes[d]);
    }
    std::sort(collapsed.begin(), collapsed.end());
    const int64_t batch = Uniform(1, 6);
    std::vector<int64_t> out = {batch}, offset_dims;
    for (size_t d = 0; d < a.dims.size(); ++d)
      if (!std::count(collapsed.begin(), collapsed.end(), static_cast<int64_t>(d))) {
        offset_dims.push_back(static_cast<int64_t>(out.size()));
        out.push_back(sizes[d]);
      }
    if (Elements(out) > kMaxElements) return;
    const Value idx = NewIndices(batch, index_dims, window);
    Emit(a.type, out,
         "gather(" + a.name + ", " + idx.name + "), offset_dims={" + List(offset_dims) + "}, collapsed_slice_dims={" +
             List(collapsed) + "}, start_index_map={" + List(indexed) + "}, index_vector_dim=1, slice_sizes={" + List(sizes) + "}",
         a.bound, a.integral);
    KeepRaw(a.raw);
  }

  // The general form of gather and scatter's indexing: batching dims
  // (operand dims that pair with a dim of the indices), extra batch dims,
  // the index vector anywhere (or implicit, after the last dim, for one
  // component), indices of any integer type.
  struct Indexing {
    std::vector<int64_t> indexed;        // operand dims the index vector names, in its order
    std::vector<int64_t> operand_batch;  // operand batching dims, ascending
    std::vector<int64_t> index_batch;    // the indices' dims paired with them
    std::vector<int64_t> batch;          // the indices' dims, the index vector's left out
    int64_t index_vector_dim = 0;
    std::string indices;                 // the indices' value
  };

  // Indexes `a` by `indexed` (its starts within dims - window) with batch
  // dims for `operand_batch` and a few more; nullopt past the parameter limit.
  std::optional<Indexing> GeneralIndices(const Value& a, std::vector<int64_t> indexed, std::vector<int64_t> operand_batch,
                                         const std::vector<int64_t>& window) {
    if (args_.size() >= kMaxParameters) return std::nullopt;
    Indexing x;
    x.indexed = std::move(indexed);
    x.operand_batch = std::move(operand_batch);
    // The batch dims: one per operand batching dim (its size), in a random
    // order among up to two others.
    std::vector<int64_t> owner;  // per batch dim: the operand batching dim, or -1
    for (int64_t d : x.operand_batch) owner.push_back(d);
    for (int extra = static_cast<int>(rng_() % 3); extra > 0; --extra) owner.push_back(-1);
    std::shuffle(owner.begin(), owner.end(), rng_);
    for (int64_t o : owner) x.batch.push_back(o >= 0 ? a.dims[o] : Uniform(1, 4));
    const int64_t nb = static_cast<int64_t>(x.batch.size());
    const bool implicit = x.indexed.size() == 1 && Chance(3);
    x.index_vector_dim = implicit ? nb : Uniform(0, nb);
    std::vector<int64_t> shape = x.batch;
    if (!implicit) shape.insert(shape.begin() + x.index_vector_dim, static_cast<int64_t>(x.indexed.size()));
    for (int64_t d : x.operand_batch) {
      const int64_t at = std::find(owner.begin(), owner.end(), d) - owner.begin();
      x.index_batch.push_back(!implicit && at >= x.index_vector_dim ? at + 1 : at);
    }
    static const ElementType kIndexTypes[] = {ElementType::kS32, ElementType::kS32, ElementType::kS64, ElementType::kU32,
                                              ElementType::kS8, ElementType::kU8, ElementType::kU64, ElementType::kS16};
    const ElementType t = kIndexTypes[rng_() % std::size(kIndexTypes)];
    Literal arg(Shape(t, shape));
    int64_t stride = 1;  // of the index vector's dim, row-major
    for (size_t d = static_cast<size_t>(x.index_vector_dim) + 1; d < shape.size(); ++d) stride *= shape[d];
    for (int64_t i = 0; i < arg.element_count(); ++i) {
      const size_t k = implicit ? 0 : static_cast<size_t>((i / stride) % static_cast<int64_t>(x.indexed.size()));
      const int64_t dim = a.dims[x.indexed[k]], w = window[x.indexed[k]];
      const int64_t v = Chance(8) ? Uniform(IsUnsignedInt(t) ? 0 : -1, dim) : Uniform(0, dim - w);
      arg.Set(i, IsUnsignedInt(t) ? Scalar::UInt(t, static_cast<uint64_t>(v)) : Scalar::Int(t, v));
    }
    x.indices = NewParameter(std::move(arg), INFINITY).name;
    return x;
  }

  // Random positions for `count` dims among `rank`, ascending.
  std::vector<int64_t> RandomPositions(int64_t count, int64_t rank) {
    std::vector<int64_t> all(static_cast<size_t>(rank));
    std::iota(all.begin(), all.end(), int64_t{0});
    std::shuffle(all.begin(), all.end(), rng_);
    all.resize(static_cast<size_t>(count));
    std::sort(all.begin(), all.end());
    return all;
  }

  // Splits a's dims for the general forms: indexed (a random order, at
  // least one) and batching ones (ascending).
  void PickIndexedAndBatching(const Value& a, std::vector<int64_t>& indexed, std::vector<int64_t>& batching) {
    for (size_t d = 0; d < a.dims.size(); ++d) {
      const int pick = static_cast<int>(rng_() % 3);
      if (pick == 0) indexed.push_back(static_cast<int64_t>(d));
      else if (pick == 1 && a.dims.size() > 1) batching.push_back(static_cast<int64_t>(d));
    }
    if (indexed.empty()) {
      indexed.push_back(batching.empty() ? 0 : batching.back());
      if (!batching.empty()) batching.pop_back();
    }
    std::shuffle(indexed.begin(), indexed.end(), rng_);
  }

  void GeneralGather(const Value& a) {
    if (a.dims.empty()) return;
    std::vector<int64_t> indexed, batching, sizes, collapsed;
    PickIndexedAndBatching(a, indexed, batching);
    for (size_t d = 0; d < a.dims.size(); ++d) sizes.push_back(Uniform(1, a.dims[d]));
    for (int64_t d : batching) sizes[d] = 1;
    for (int64_t d : indexed) {
      if (Chance(2)) sizes[d] = 1;
      if (sizes[d] == 1 && Chance(2)) collapsed.push_back(d);
    }
    std::sort(collapsed.begin(), collapsed.end());
    std::vector<int64_t> offset_sizes;
    for (size_t d = 0; d < a.dims.size(); ++d) {
      const int64_t dd = static_cast<int64_t>(d);
      if (!std::count(collapsed.begin(), collapsed.end(), dd) && !std::count(batching.begin(), batching.end(), dd))
        offset_sizes.push_back(sizes[d]);
    }
    const std::optional<Indexing> x = GeneralIndices(a, indexed, batching, sizes);
    if (!x) return;
    const int64_t rank = static_cast<int64_t>(x->batch.size() + offset_sizes.size());
    const std::vector<int64_t> offset_dims = RandomPositions(static_cast<int64_t>(offset_sizes.size()), rank);
    std::vector<int64_t> out;
    size_t next_offset = 0, next_batch = 0;
    for (int64_t d = 0; d < rank; ++d)
      out.push_back(std::count(offset_dims.begin(), offset_dims.end(), d) ? offset_sizes[next_offset++] : x->batch[next_batch++]);
    if (Elements(out) > kMaxElements) return;
    Emit(a.type, out,
         "gather(" + a.name + ", " + x->indices + "), offset_dims={" + List(offset_dims) + "}, collapsed_slice_dims={" +
             List(collapsed) + "}, start_index_map={" + List(x->indexed) + "}, operand_batching_dims={" + List(x->operand_batch) +
             "}, start_indices_batching_dims={" + List(x->index_batch) + "}, index_vector_dim=" +
             std::to_string(x->index_vector_dim) + ", slice_sizes={" + List(sizes) + "}",
         a.bound, a.integral);
    KeepRaw(a.raw);
  }

  void GeneralScatter(const Value& a) {
    if (a.dims.empty() || a.type == ElementType::kPred) return;
    std::vector<int64_t> indexed, batching, inserted;
    PickIndexedAndBatching(a, indexed, batching);
    std::vector<int64_t> window(a.dims.size(), 1);
    for (int64_t d : indexed)
      if (Chance(2)) inserted.push_back(d);
    std::sort(inserted.begin(), inserted.end());
    std::vector<int64_t> window_sizes;
    for (size_t d = 0; d < a.dims.size(); ++d) {
      const int64_t dd = static_cast<int64_t>(d);
      if (std::count(inserted.begin(), inserted.end(), dd) || std::count(batching.begin(), batching.end(), dd)) continue;
      window[d] = Uniform(1, a.dims[d]);
      window_sizes.push_back(window[d]);
    }
    const std::optional<Indexing> x = GeneralIndices(a, indexed, batching, window);
    if (!x || args_.size() >= kMaxParameters) return;
    const int64_t rank = static_cast<int64_t>(x->batch.size() + window_sizes.size());
    const std::vector<int64_t> window_dims = RandomPositions(static_cast<int64_t>(window_sizes.size()), rank);
    std::vector<int64_t> update_dims;
    size_t next_window = 0, next_batch = 0;
    for (int64_t d = 0; d < rank; ++d)
      update_dims.push_back(std::count(window_dims.begin(), window_dims.end(), d) ? window_sizes[next_window++]
                                                                                   : x->batch[next_batch++]);
    if (Elements(update_dims) > kMaxElements) return;
    const Value u = NewParameter(a.type, update_dims);
    const double terms = static_cast<double>(Elements(x->batch)) + 1;
    const bool sum_exact = a.integral && std::max(a.bound, u.bound) * terms <= ExactIntegerLimit(a.type);
    const std::string op = sum_exact && !Chance(3) ? "add" : Chance(2) ? "maximum" : "minimum";
    Emit(a.type, a.dims,
         "scatter(" + a.name + ", " + x->indices + ", " + u.name + "), update_window_dims={" + List(window_dims) +
             "}, inserted_window_dims={" + List(inserted) + "}, scatter_dims_to_operand_dims={" + List(x->indexed) +
             "}, input_batching_dims={" + List(x->operand_batch) + "}, scatter_indices_batching_dims={" + List(x->index_batch) +
             "}, index_vector_dim=" + std::to_string(x->index_vector_dim) + ", to_apply=" + Reducer(op, a.type),
         op == "add" ? std::max(a.bound, u.bound) * terms : std::max(a.bound, u.bound), a.integral);
  }

  // Scatter-add (max or min where a sum may not stay exact): any order of
  // the updates gives one result, duplicates included.
  void Scatter(const Value& a) {
    if (a.dims.empty() || a.type == ElementType::kPred || args_.size() + 2 > kMaxParameters) return;
    if (Chance(2)) return GeneralScatter(a);
    std::vector<int64_t> indexed;
    for (size_t d = 0; d < a.dims.size(); ++d)
      if (Chance(2)) indexed.push_back(static_cast<int64_t>(d));
    if (indexed.empty()) indexed.push_back(static_cast<int64_t>(a.dims.size()) - 1);
    std::shuffle(indexed.begin(), indexed.end(), rng_);
    // Indexed dims are inserted (window size 1); the others take windows.
    std::vector<int64_t> inserted = indexed, index_dims, window(a.dims.size(), 1), update_dims, window_dims;
    std::sort(inserted.begin(), inserted.end());
    const int64_t batch = Uniform(1, 8);
    update_dims.push_back(batch);
    for (size_t d = 0; d < a.dims.size(); ++d)
      if (!std::count(inserted.begin(), inserted.end(), static_cast<int64_t>(d))) {
        window[d] = Uniform(1, a.dims[d]);
        window_dims.push_back(static_cast<int64_t>(update_dims.size()));
        update_dims.push_back(window[d]);
      }
    std::vector<int64_t> index_window;
    for (int64_t d : indexed) index_dims.push_back(a.dims[d]), index_window.push_back(window[d]);
    const Value idx = NewIndices(batch, index_dims, index_window);
    const Value u = NewParameter(a.type, update_dims);
    const double terms = static_cast<double>(batch) + 1;
    const bool sum_exact = a.integral && std::max(a.bound, u.bound) * terms <= ExactIntegerLimit(a.type);
    const std::string op = sum_exact && !Chance(3) ? "add" : Chance(2) ? "maximum" : "minimum";
    Emit(a.type, a.dims,
         "scatter(" + a.name + ", " + idx.name + ", " + u.name + "), update_window_dims={" + List(window_dims) +
             "}, inserted_window_dims={" + List(inserted) + "}, scatter_dims_to_operand_dims={" + List(indexed) +
             "}, index_vector_dim=1, to_apply=" + Reducer(op, a.type),
         op == "add" ? std::max(a.bound, u.bound) * terms : std::max(a.bound, u.bound), a.integral);
  }

  // Sorts in the total order (NaNs and -0 placed), alone or stably with
  // an s32 payload.
  void Sort(const Value& a) {
    if (a.dims.empty() || (IsFloat(a.type) && !a.raw)) return;
    const std::string t(ElementTypeName(a.type));
    const int64_t d = static_cast<int64_t>(rng_() % a.dims.size());
    const std::string direction = Chance(2) ? "LT" : "GT";
    const std::string order = IsFloat(a.type) ? ", type=TOTALORDER" : "";
    if (Chance(2)) {
      const std::string name = "sort_" + t + "_" + direction;
      if (reducers_.insert(name).second)
        computations_ += name + " {\n  x = " + t + "[] parameter(0)\n  y = " + t + "[] parameter(1)\n  ROOT r = pred[] compare(x, y), direction=" +
                         direction + order + "\n}\n\n";
      Emit(a.type, a.dims, "sort(" + a.name + "), dimensions={" + std::to_string(d) + "}, to_apply=" + name, a.bound, a.integral);
      return;
    }
    const std::string name = "sort_pair_" + t + "_" + direction;
    if (reducers_.insert(name).second)
      computations_ += name + " {\n  x = " + t + "[] parameter(0)\n  y = " + t + "[] parameter(1)\n  i = s32[] parameter(2)\n  j = s32[] parameter(3)\n  ROOT r = pred[] compare(x, y), direction=" +
                       direction + order + "\n}\n\n";
    const Value iota = Emit(ElementType::kS32, a.dims, "iota(), iota_dimension=" + std::to_string(d), static_cast<double>(a.dims[d]), true);
    const std::string pair = "(" + ShapeText(a.type, a.dims) + ", " + ShapeText(ElementType::kS32, a.dims) + ")";
    const std::string sorted = "s" + std::to_string(values_.size());
    body_ += "  " + sorted + " = " + pair + " sort(" + a.name + ", " + iota.name + "), dimensions={" + std::to_string(d) +
             "}, is_stable=true, to_apply=" + name + "\n";
    Emit(ElementType::kS32, a.dims, "get-tuple-element(" + sorted + "), index=1", static_cast<double>(a.dims[d]), true);
  }

  // A 1-D or 2-D convolution of a rank-3 or rank-4 value, its dims given
  // random roles, with padding, strides, dilations and feature groups.
  void Convolution(const Value& a) {
    const size_t rank = a.dims.size();
    if ((rank != 3 && rank != 4) || a.type == ElementType::kPred || args_.size() >= kMaxParameters) return;
    const size_t spatial = rank - 2;
    std::vector<char> in_roles = {'b', 'f', '0', '1'};
    in_roles.resize(rank);
    if (rank == 3) in_roles = {'b', 'f', '0'};
    std::shuffle(in_roles.begin(), in_roles.end(), rng_);
    auto dim_of = [&](char role) {
      for (size_t i = 0; i < rank; ++i)
        if (in_roles[i] == role) return a.dims[i];
      return int64_t{1};
    };
    const int64_t batch = dim_of('b'), features = dim_of('f');
    const int64_t groups = features > 1 && Chance(3) ? features : 1;
    const int64_t out_features = groups * Uniform(1, 3);
    std::vector<int64_t> size, stride, lhs_dilate, rhs_dilate, out_spatial;
    std::string pad;
    int64_t terms = features / groups;
    for (size_t s = 0; s < spatial; ++s) {
      const int64_t in = dim_of(static_cast<char>('0' + s));
      const int64_t ld = Chance(4) ? 2 : 1, rd = Chance(4) ? 2 : 1, lo = Uniform(0, 1), hi = Uniform(0, 2);
      const int64_t base = (in - 1) * ld + 1 + lo + hi;
      const int64_t k = Uniform(1, std::max<int64_t>(1, std::min<int64_t>(3, (base - 1) / rd + 1)));
      const int64_t extent = (k - 1) * rd + 1;
      if (extent > base) return;
      const int64_t st = Uniform(1, 2);
      size.push_back(k), stride.push_back(st), lhs_dilate.push_back(ld), rhs_dilate.push_back(rd);
      out_spatial.push_back((base - extent) / st + 1);
      pad += std::string(s ? "x" : "") + std::to_string(lo) + "_" + std::to_string(hi);
      terms *= k;
    }
    if (IsFloat(a.type) && !(a.integral && a.bound * 8 * static_cast<double>(terms) <= ExactIntegerLimit(a.type))) return;
    // Kernel dims: the spatial ones, input features per group, output features.
    std::vector<char> k_roles = {'i', 'o', '0', '1'};
    k_roles.resize(rank);
    if (rank == 3) k_roles = {'i', 'o', '0'};
    std::shuffle(k_roles.begin(), k_roles.end(), rng_);
    std::vector<int64_t> k_dims;
    for (char r : k_roles) k_dims.push_back(r == 'i' ? features / groups : r == 'o' ? out_features : size[r - '0']);
    std::vector<char> out_roles = in_roles;
    std::shuffle(out_roles.begin(), out_roles.end(), rng_);
    std::vector<int64_t> out;
    for (char r : out_roles) out.push_back(r == 'b' ? batch : r == 'f' ? out_features : out_spatial[r - '0']);
    if (Elements(out) > kMaxElements) return;
    const Value k = NewParameter(a.type, k_dims);
    std::string window = "size=" + List(size, "x") + " stride=" + List(stride, "x") + " pad=" + pad + " lhs_dilate=" +
                         List(lhs_dilate, "x") + " rhs_dilate=" + List(rhs_dilate, "x");
    Emit(a.type, out,
         "convolution(" + a.name + ", " + k.name + "), window={" + window + "}, dim_labels=" + std::string(in_roles.begin(), in_roles.end()) +
             "_" + std::string(k_roles.begin(), k_roles.end()) + "->" + std::string(out_roles.begin(), out_roles.end()) +
             (groups > 1 ? ", feature_group_count=" + std::to_string(groups) : ""),
         a.bound * 8 * static_cast<double>(terms), a.integral);
  }

  // A counted loop whose body adds a constant to the value and reverses it
  // along its first dim, trips times.
  void While(const Value& a) {
    if (a.type == ElementType::kPred) return;
    const int trips = static_cast<int>(Uniform(0, 4));
    const std::string t = ShapeText(a.type, a.dims), state = "(s32[], " + t + ")";
    const std::string n = std::to_string(loops_++);
    const std::string reversed = a.dims.empty() ? "x" : "r";
    computations_ += "cond" + n + " {\n  p = " + state + " parameter(0)\n  i = s32[] get-tuple-element(p), index=0\n  n = s32[] constant(" +
                     std::to_string(trips) + ")\n  ROOT c = pred[] compare(i, n), direction=LT\n}\n\n";
    computations_ += "body" + n + " {\n  p = " + state + " parameter(0)\n  i = s32[] get-tuple-element(p), index=0\n  x = " + t +
                     " get-tuple-element(p), index=1\n  one = s32[] constant(1)\n  j = s32[] add(i, one)\n" +
                     (a.dims.empty() ? "" : "  r = " + t + " reverse(x), dimensions={0}\n") + "  c = " + ShapeText(a.type, {}) +
                     " constant(3)\n  b = " + t + " broadcast(c), dimensions={}\n  y = " + t + " add(" + reversed +
                     ", b)\n  ROOT s = " + state + " tuple(j, y)\n}\n\n";
    const std::string zero = Constant(ElementType::kS32, 0.0);
    const std::string init = "w" + std::to_string(values_.size());
    body_ += "  " + init + " = " + state + " tuple(" + zero + ", " + a.name + ")\n";
    const std::string loop = "l" + std::to_string(values_.size());
    body_ += "  " + loop + " = " + state + " while(" + init + "), condition=cond" + n + ", body=body" + n + "\n";
    Emit(a.type, a.dims, "get-tuple-element(" + loop + "), index=1", a.bound + 3.0 * trips, a.integral);
  }

  // A conditional on a runtime predicate or branch index (a parameter:
  // an index out of range takes the last branch, as the spec says), its
  // branches each changing the value a different way.
  void Conditional(const Value& a) {
    if (args_.size() >= kMaxParameters) return;
    const std::string t = ShapeText(a.type, a.dims);
    const int branches = Chance(2) ? 2 : 3;
    const bool by_index = branches == 3 || Chance(2);
    const std::string n = std::to_string(loops_++);
    const std::string two = a.type == ElementType::kPred ? "true" : "2";
    const std::vector<std::string> bodies = {
        a.type == ElementType::kPred ? "not(x)" : "negate(x)",
        "add(x, b)",
        a.type == ElementType::kPred ? "copy(x)" : "multiply(x, b)",
    };
    std::string names;
    for (int k = 0; k < branches; ++k) {
      const std::string name = "branch" + n + "_" + std::to_string(k);
      const std::string op = a.type == ElementType::kPred && k == 1 ? "or(x, b)" : bodies[k];
      computations_ += name + " {\n  x = " + t + " parameter(0)\n  c = " + ShapeText(a.type, {}) + " constant(" + two + ")\n  b = " +
                       t + " broadcast(c), dimensions={}\n  ROOT r = " + t + " " + op + "\n}\n\n";
      names += (k ? ", " : "") + name;
    }
    std::string selector;
    if (by_index) {
      Literal index(Shape(ElementType::kS32, {}));
      index.Set(0, Scalar::Int(ElementType::kS32, Uniform(-1, branches)));
      selector = NewParameter(std::move(index), INFINITY).name;
    } else {
      Literal pred(Shape(ElementType::kPred, {}));
      pred.Set(0, Scalar::Pred(Chance(2)));
      selector = NewParameter(std::move(pred), 1).name;
    }
    std::string operands;
    for (int k = 0; k < branches; ++k) operands += ", " + a.name;
    const std::string which = by_index ? "branch_computations={" + names + "}"
                                       : "true_computation=branch" + n + "_0, false_computation=branch" + n + "_1";
    Emit(a.type, a.dims, "conditional(" + selector + operands + "), " + which, a.bound * 2 + 2, a.integral);
  }

  // A reduce over a dim given a smaller size at run time (set-dimension-size
  // from a parameter), through an elementwise op on the dynamic shape: only
  // the first `size` elements along it count.
  void DynamicReduce(const Value& a) {
    if (a.dims.empty() || args_.size() >= kMaxParameters) return;
    const int64_t d = static_cast<int64_t>(rng_() % a.dims.size());
    Literal size(Shape(ElementType::kS32, {}));
    size.Set(0, Scalar::Int(ElementType::kS32, Uniform(0, a.dims[d])));
    const Value sz = NewParameter(std::move(size), INFINITY);
    std::string dynamic = std::string(ElementTypeName(a.type)) + "[";
    for (size_t i = 0; i < a.dims.size(); ++i)
      dynamic += (i ? "," : "") + std::string(static_cast<int64_t>(i) == d ? "<=" : "") + std::to_string(a.dims[i]);
    dynamic += "]";
    const std::string n = std::to_string(values_.size());
    body_ += "  dyn" + n + " = " + dynamic + " set-dimension-size(" + a.name + ", " + sz.name + "), dimensions={" + std::to_string(d) + "}\n";
    std::string x = "dyn" + n;
    if (a.type != ElementType::kPred && Chance(2)) {
      body_ += "  dneg" + n + " = " + dynamic + " negate(" + x + ")\n";
      x = "dneg" + n;
    }
    // Now and then a dot of the dynamic value with itself over the dynamic
    // dim (products summed over the run-time size only).
    if (a.dims.size() <= 2 && a.type != ElementType::kPred && Chance(3)) {
      const bool sum_exact = a.integral && a.bound * a.bound * static_cast<double>(a.dims[d]) <= ExactIntegerLimit(a.type);
      if (sum_exact || !IsFloat(a.type)) {
        std::vector<int64_t> dims;
        for (size_t i = 0; i < a.dims.size(); ++i)
          if (static_cast<int64_t>(i) != d) dims.push_back(a.dims[i]);
        for (size_t i = 0; i < a.dims.size(); ++i)
          if (static_cast<int64_t>(i) != d) dims.push_back(a.dims[i]);
        Emit(a.type, dims,
             "dot(" + x + ", " + x + "), lhs_contracting_dims={" + std::to_string(d) + "}, rhs_contracting_dims={" +
                 std::to_string(d) + "}",
             a.bound * a.bound * static_cast<double>(a.dims[d]) + 1, a.integral);
        return;
      }
    }
    // Now and then windows along the dynamic dim (max or min: exact), then
    // the reduce over it.
    if (a.type != ElementType::kPred && Chance(4)) {
      const int64_t size = Uniform(1, std::min<int64_t>(3, a.dims[d])), stride = Uniform(1, 2), hi = Uniform(0, 1);
      const int64_t windows = (a.dims[d] + hi - size) / stride + 1;
      std::string wdims = std::string(ElementTypeName(a.type)) + "[", spec_size, spec_stride, spec_pad;
      for (size_t i = 0; i < a.dims.size(); ++i) {
        const bool at_d = static_cast<int64_t>(i) == d;
        wdims += (i ? "," : "") + std::string(at_d ? "<=" : "") + std::to_string(at_d ? windows : a.dims[i]);
        spec_size += (i ? "x" : "") + std::to_string(at_d ? size : 1);
        spec_stride += (i ? "x" : "") + std::to_string(at_d ? stride : 1);
        spec_pad += (i ? "x" : "") + std::string(at_d ? "0_" + std::to_string(hi) : "0_0");
      }
      wdims += "]";
      const bool larger = Chance(2);
      const std::string infinity = a.type == ElementType::kF8E4M3FN ? "448" : "inf";
      const std::string init = IsFloat(a.type) ? (larger ? "-" + infinity : infinity)
                                               : (larger ? std::to_string(IntegerMin(a.type)) : std::to_string(IntegerMax(a.type)));
      body_ += "  dwin" + n + " = " + wdims + " reduce-window(" + x + ", " + Constant(a.type, init) + "), window={size=" + spec_size +
               " stride=" + spec_stride + " pad=" + spec_pad + "}, to_apply=" + Reducer(larger ? "maximum" : "minimum", a.type) + "\n";
      std::vector<int64_t> dims = a.dims;
      dims.erase(dims.begin() + d);
      Emit(a.type, dims,
           "reduce(dwin" + n + ", " + Constant(a.type, init) + "), dimensions={" + std::to_string(d) + "}, to_apply=" +
               Reducer(larger ? "maximum" : "minimum", a.type),
           a.bound, a.integral);
      return;
    }
    // Now and then a reduce over another dim first, which keeps the
    // dynamic one (its result dynamic too).
    std::vector<int64_t> dims = a.dims;
    int64_t at = d;
    double terms = 1;
    if (dims.size() >= 2 && Chance(2)) {
      int64_t e = static_cast<int64_t>(rng_() % dims.size());
      if (e == d) e = (e + 1) % static_cast<int64_t>(dims.size());
      double bound = 0;
      const auto [reducer, init] = ReduceOp(a, a.dims[e], bound);
      terms = static_cast<double>(a.dims[e]);
      dims.erase(dims.begin() + e);
      if (e < d) --at;
      std::string kept = std::string(ElementTypeName(a.type)) + "[";
      for (size_t i = 0; i < dims.size(); ++i)
        kept += (i ? "," : "") + std::string(static_cast<int64_t>(i) == at ? "<=" : "") + std::to_string(dims[i]);
      kept += "]";
      body_ += "  dred" + n + " = " + kept + " reduce(" + x + ", " + init + "), dimensions={" + std::to_string(e) +
               "}, to_apply=" + reducer + "\n";
      x = "dred" + n;
    }
    // The sum's terms: both reduces' (the partial sums stay exact).
    Value shape_of_terms = a;
    shape_of_terms.bound = a.bound * terms;
    const int64_t length = dims[at];
    dims.erase(dims.begin() + at);
    double bound = 0;
    const auto [reducer, init] = ReduceOp(shape_of_terms, length, bound);
    Emit(a.type, dims, "reduce(" + x + ", " + init + "), dimensions={" + std::to_string(at) + "}, to_apply=" + reducer, bound + 1,
         a.integral);
  }

  // Float bits: reduce-precision to another format's exponent and mantissa
  // (rounding, overflow, NaNs kept NaN), is-finite, or the bits of a raw
  // value split into narrower words along a new minor dim.
  void FloatBits(const Value& a) {
    if (IsFloat(a.type) && Chance(2)) {
      static const int kFormats[][2] = {{5, 10}, {8, 7}, {4, 3}, {5, 2}, {8, 23}, {11, 52}, {3, 1}};
      const auto& f = kFormats[rng_() % std::size(kFormats)];
      Emit(a.type, a.dims, "reduce-precision(" + a.name + "), exponent_bits=" + std::to_string(f[0]) + ", mantissa_bits=" +
           std::to_string(f[1]), f[0] >= 5 ? a.bound * 2 : INFINITY, a.integral);
      return;
    }
    if (IsFloat(a.type) && Chance(2)) {
      Emit(ElementType::kPred, a.dims, "is-finite(" + a.name + ")", 1, true);
      return;
    }
    const int width = BitWidth(a.type);
    if ((IsFloat(a.type) && !a.raw) || a.type == ElementType::kPred || width < 16) return;
    const ElementType to = width == 64 ? (Chance(2) ? ElementType::kU32 : ElementType::kS16)
                                       : width == 32 ? (Chance(2) ? ElementType::kU16 : ElementType::kU8)
                                                     : ElementType::kS8;
    std::vector<int64_t> dims = a.dims;
    dims.push_back(width / BitWidth(to));
    if (Elements(dims) > kMaxElements) return;
    Emit(to, dims, "bitcast-convert(" + a.name + ")", BoundOfType(to), true);
  }

  // A complex value built from two real ones, added to or subtracted from
  // itself, and one of its parts taken back (the complex values stay inside
  // this step). Not multiplied: with an infinity and a NaN about, the
  // reference's C++ complex product recovers infinities (C Annex G) where
  // the device's does not, and the spec does not choose.
  void ComplexParts(const Value& a) {
    if (a.type != ElementType::kF32 && a.type != ElementType::kF64) return;
    const Value b = SameShape(a);
    const std::string c = a.type == ElementType::kF32 ? "c64" : "c128";
    const std::string t = c + "[" + List(a.dims) + "]", n = std::to_string(values_.size());
    body_ += "  z" + n + " = " + t + " complex(" + a.name + ", " + b.name + ")\n";
    body_ += "  zz" + n + " = " + t + (Chance(2) ? " subtract(z" : " add(z") + n + ", z" + n + ")\n";
    Emit(a.type, a.dims, std::string(Chance(2) ? "real" : "imag") + "(zz" + n + ")", 2 * std::max(a.bound, b.bound),
         a.integral && b.integral);
  }

  // The largest integer along a dim and its first index, by a reduce of
  // two operands whose reducer breaks ties by the smaller index (integers
  // only: with NaNs such a reducer is not associative).
  void ArgMax(const Value& a) {
    if (a.dims.empty() || !IsInteger(a.type) || a.type == ElementType::kPred) return;
    const std::string t = ShapeText(a.type, {});
    const std::string name = "argmax_" + std::string(ElementTypeName(a.type));
    if (reducers_.insert(name).second)
      computations_ += name + " {\n  a = " + t + " parameter(0)\n  i = s32[] parameter(1)\n  b = " + t +
                       " parameter(2)\n  j = s32[] parameter(3)\n  gt = pred[] compare(a, b), direction=GT\n"
                       "  eq = pred[] compare(a, b), direction=EQ\n  lo = pred[] compare(i, j), direction=LT\n"
                       "  tie = pred[] and(eq, lo)\n  pick = pred[] or(gt, tie)\n  v = " + t + " select(pick, a, b)\n"
                       "  k = s32[] select(pick, i, j)\n  ROOT r = (" + t + ", s32[]) tuple(v, k)\n}\n\n";
    const int64_t d = static_cast<int64_t>(rng_() % a.dims.size());
    const Value iota = Emit(ElementType::kS32, a.dims, "iota(), iota_dimension=" + std::to_string(d), static_cast<double>(a.dims[d]), true);
    std::vector<int64_t> dims = a.dims;
    dims.erase(dims.begin() + d);
    const std::string pair = "(" + ShapeText(a.type, dims) + ", " + ShapeText(ElementType::kS32, dims) + ")";
    const std::string r = "am" + std::to_string(values_.size());
    body_ += "  " + r + " = " + pair + " reduce(" + a.name + ", " + iota.name + ", " +
             Constant(a.type, std::to_string(IntegerMin(a.type))) + ", " + Constant(ElementType::kS32, 0.0) + "), dimensions={" +
             std::to_string(d) + "}, to_apply=" + name + "\n";
    if (Chance(2)) Emit(ElementType::kS32, dims, "get-tuple-element(" + r + "), index=1", static_cast<double>(a.dims[d]), true);
    else Emit(a.type, dims, "get-tuple-element(" + r + "), index=0", a.bound, true);
  }

  // map over every dim with a two-operand computation.
  void Map(const Value& a) {
    if (a.dims.empty()) return;
    const Value b = SameShape(a);
    const std::string op = a.type == ElementType::kPred ? "and" : Chance(2) ? "maximum" : "add";
    std::vector<int64_t> all(a.dims.size());
    std::iota(all.begin(), all.end(), 0);
    Emit(a.type, a.dims, "map(" + a.name + ", " + b.name + "), dimensions={" + List(all) + "}, to_apply=" + Reducer(op, a.type),
         op == "add" ? a.bound + b.bound : std::max(a.bound, b.bound), a.integral && b.integral);
  }

  // The value through a called computation: `call`, a `fusion` as XLA's
  // dumps write them (kind and calls), or an opt-barrier around a tuple.
  void Called(const Value& a) {
    const std::string t = ShapeText(a.type, a.dims), n = std::to_string(loops_++);
    const std::string op = a.type == ElementType::kPred ? "not(p)" : "add(p, p)";
    const int pick = static_cast<int>(rng_() % 3);
    if (pick == 2) {
      const std::string tuple = "(" + t + ")";
      body_ += "  ob" + n + " = " + tuple + " tuple(" + a.name + ")\n";
      body_ += "  obb" + n + " = " + tuple + " opt-barrier(ob" + n + ")\n";
      Emit(a.type, a.dims, "get-tuple-element(obb" + n + "), index=0", a.bound, a.integral);
      KeepRaw(a.raw);
      return;
    }
    const std::string name = std::string(pick == 0 ? "called" : "fused_computation") + n;
    computations_ += name + " {\n  p = " + t + " parameter(0)\n  ROOT r = " + t + " " + op + "\n}\n\n";
    Emit(a.type, a.dims, pick == 0 ? "call(" + a.name + "), to_apply=" + name : "fusion(" + a.name + "), kind=kLoop, calls=" + name,
         a.bound * 2, a.integral);
  }

  // The k largest of a value's rows (integers: ties go to the lower index,
  // as the spec says) and their indices.
  void TopK(const Value& a) {
    if (a.dims.empty() || !IsInteger(a.type) || a.type == ElementType::kPred) return;
    const int64_t k = Uniform(1, a.dims.back());
    std::vector<int64_t> dims = a.dims;
    dims.back() = k;
    const std::string r = "tk" + std::to_string(values_.size());
    body_ += "  " + r + " = (" + ShapeText(a.type, dims) + ", " + ShapeText(ElementType::kS32, dims) + ") topk(" + a.name + "), k=" +
             std::to_string(k) + ", largest=" + (Chance(2) ? "true" : "false") + "\n";
    if (Chance(2)) Emit(a.type, dims, "get-tuple-element(" + r + "), index=0", a.bound, true);
    else Emit(ElementType::kS32, dims, "get-tuple-element(" + r + "), index=1", static_cast<double>(a.dims.back()), true);
  }

  // A max-pool gradient: each window's first largest element (in the
  // window's order, GE) collects the window's source value, added up
  // where windows overlap; integers or raw floats with exact sums.
  void SelectAndScatter(const Value& a) {
    if (a.dims.empty() || a.type == ElementType::kPred || args_.size() >= kMaxParameters) return;
    if (IsFloat(a.type) && !a.integral) return;
    std::vector<int64_t> windows, size, stride;
    int64_t overlap = 1;
    for (int64_t d : a.dims) {
      const int64_t sz = Uniform(1, std::min<int64_t>(3, d)), st = Uniform(1, sz);
      size.push_back(sz);
      stride.push_back(st);
      windows.push_back((d - sz) / st + 1);
      overlap *= (sz + st - 1) / st;
    }
    const Value source = NewParameter(a.type, windows);
    const double bound = source.bound * static_cast<double>(overlap);
    if (IsFloat(a.type) && bound > ExactIntegerLimit(a.type)) return;
    const std::string t(ElementTypeName(a.type));
    const std::string ge = "select_ge_" + t, add = Reducer("add", a.type);
    if (reducers_.insert(ge).second)
      computations_ += ge + " {\n  x = " + t + "[] parameter(0)\n  y = " + t + "[] parameter(1)\n  ROOT r = pred[] compare(x, y), direction=GE\n}\n\n";
    Emit(a.type, a.dims,
         "select-and-scatter(" + a.name + ", " + source.name + ", " + Constant(a.type, 0.0) + "), window={size=" + List(size, "x") +
             " stride=" + List(stride, "x") + "}, select=" + ge + ", scatter=" + add,
         bound, true);
  }

  void Other(const Value& a) {
    switch (rng_() % 4) {
      case 3: {
        // Random bits (counter-based: the device must give the reference's
        // bits exactly), added to the value where it is an integer.
        if (args_.size() >= kMaxParameters) return;
        Literal state(Shape(ElementType::kU64, {2}));
        for (int64_t i = 0; i < 2; ++i) state.Set(i, Scalar::UInt(ElementType::kU64, rng_()));
        const Value s = NewParameter(std::move(state), INFINITY);
        static const char* kAlgorithms[] = {"rng_philox", "rng_three_fry", "rng_default"};
        const ElementType t = Chance(2) ? ElementType::kU32 : ElementType::kU64;
        const std::vector<int64_t> dims = a.dims.empty() ? std::vector<int64_t>{5} : a.dims;
        const std::string r = "g" + std::to_string(values_.size());
        body_ += "  " + r + " = (u64[2], " + ShapeText(t, dims) + ") rng-bit-generator(" + s.name + "), algorithm=" +
                 kAlgorithms[rng_() % 3] + "\n";
        const Value bits = Emit(t, dims, "get-tuple-element(" + r + "), index=1", BoundOfType(t), true);
        if (IsInteger(a.type) && a.dims == dims)
          Emit(a.type, dims, "add(" + a.name + ", " + Emit(a.type, dims, "convert(" + bits.name + ")", BoundOfType(a.type), true).name + ")",
               BoundOfType(a.type), true);
        return;
      }
      case 0: {
        // An iota added to the value.
        if (a.dims.empty() || a.type == ElementType::kPred) return;
        const int64_t d = static_cast<int64_t>(rng_() % a.dims.size());
        const Value i = Emit(a.type, a.dims, "iota(), iota_dimension=" + std::to_string(d), static_cast<double>(a.dims[d]), true);
        Emit(a.type, a.dims, "add(" + a.name + ", " + i.name + ")", a.bound + i.bound, a.integral);
        return;
      }
      case 1:
        Emit(a.type, a.dims, "copy(" + a.name + ")", a.bound, a.integral);
        KeepRaw(a.raw);
        return;
      default:
        if (args_.size() < kMaxParameters) {
          const Value p = NewParameter(RandomType(), RandomDims());
          (void)p;
        }
        return;
    }
  }

  std::mt19937_64 rng_;
  std::vector<Value> values_;
  std::vector<Literal> args_;
  std::string computations_, parameters_, body_;
  std::set<std::string> reducers_;
  int constants_ = 0;
  int loops_ = 0;
};

}  // namespace

RandomProgram GenerateRandomProgram(uint64_t seed) { return Generator(seed).Run(); }

}  // namespace vkxla
