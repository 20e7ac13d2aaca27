#include "codegen/elementwise_emitter.h"

#include <map>
#include <set>

#include "codegen/glsl_types.h"
#include "codegen/shader_library.h"
#include "codegen/glsl_index_arithmetic.h"
#include "ir/layout_index.h"
#include "ir/tiled_index.h"
#include "ops/data_movement_reference.h"
#include "ops/op_traits.h"
#include "ops/slice_and_padding.h"

namespace vkxla {
namespace {

std::string U(int64_t v) { return std::to_string(v) + "u"; }

// Name suffix of the real-math instance a type computes with.
std::string MathSuffix(ElementType t) {
  ElementType c = ComplexComponentType(t);
  return c == ElementType::kF64 ? "double" : "float";
}

std::string Transcendental(Opcode op) {
  switch (op) {
    case Opcode::kExp: return "exp";
    case Opcode::kExpm1: return "expm1";
    case Opcode::kLog: return "log";
    case Opcode::kLog1p: return "log1p";
    case Opcode::kSin: return "sin";
    case Opcode::kCos: return "cos";
    case Opcode::kTan: return "tan";
    case Opcode::kTanh: return "tanh";
    case Opcode::kCosh: return "cosh";
    case Opcode::kLogistic: return "logistic";
    case Opcode::kSqrt: return "sqrt";
    case Opcode::kRsqrt: return "rsqrt";
    case Opcode::kCbrt: return "cbrt";
    case Opcode::kErf: return "erf";
    default: return "";
  }
}

class Emitter {
 public:
  Emitter(const TargetFeatures& target, std::function<Layout(const Instruction*)> input_layout)
      : target_(target), input_layout_(std::move(input_layout)) {}

  StatusOr<KernelSource> Emit(const Instruction& root, const Shape& out);

 private:
  StatusOr<std::string> Value(const Instruction* n, const std::vector<std::string>& idx);
  StatusOr<std::string> Compute(const Instruction* n, const std::vector<std::string>& idx);
  StatusOr<std::string> Unary(const Instruction& n, const std::string& x);
  StatusOr<std::string> Binary(const Instruction& n, const std::string& a, const std::string& b);
  StatusOr<std::string> Convert(const std::string& x, ElementType from, ElementType to);
  StatusOr<std::string> Bitcast(const Instruction* n, const std::vector<std::string>& idx);
  StatusOr<std::string> Reinterpret(const Instruction* n, const std::vector<std::string>& idx);
  StatusOr<std::string> MoveElements(const Instruction* n, const std::vector<std::string>& idx);
  Layout LayoutOf(const Instruction* n) const;
  StatusOr<std::string> PhysicalIndex(const Shape& shape, const Layout& layout, const std::vector<std::string>& idx);
  Status Use(ElementType t, const Instruction& n);
  std::string Temp(const std::string& type, const std::string& expr);
  std::string Helper(const std::string& name, const std::string& definition);
  std::string Bits64(ElementType t, const std::string& x);
  std::string FromBits64(ElementType t, const std::string& b);

  const TargetFeatures& target_;
  std::function<Layout(const Instruction*)> input_layout_;
  const Instruction* root_ = nullptr;
  Shape out_;
  Layout out_layout_;
  std::vector<std::string> root_index_;
  std::string body_;
  int next_temp_ = 0;
  std::map<std::string, std::string> memo_;
  std::vector<const Instruction*> inputs_;
  std::map<const Instruction*, int> binding_;
  std::map<std::string, std::string> helpers_;
  LibraryNeeds needs_;
  bool int64_ = false;
  int out_bits_ = 0;  // storage bits of one output element
  std::set<std::string> vector_loads_;  // inputs read as whole uvec4s
  // Block mode (a 4x4 register transpose): each invocation owns a 4x4
  // block of logical dims a (the output's unit-stride dim) and b (some
  // input's); ka/kb index the element inside it.
  int64_t block_a_ = -1, block_b_ = -1;
  std::vector<std::string> block_base_;          // the block's first logical index
  std::map<std::string, std::string> row_loads_;  // buffer -> its 4 uvec4s along b, one per ka
  std::map<std::string, std::string> col_loads_;  // buffer -> its 4 uvec4s along a, one per kb

  // Finds the unit-stride dim b of an operand read at the root index, for
  // block mode; -1 if none differs from a.
  int64_t FindTransposedOperand(const Instruction* n, int64_t a, std::set<const Instruction*>& seen);
  StatusOr<KernelSource> EmitBlocked(const Instruction& root, const TiledIndexMap& out_map);
  std::string Prologue(uint32_t local_size, const std::string& name) const;
};

Status Emitter::Use(ElementType t, const Instruction& n) {
  ASSIGN_OR_RETURN(GlslType g, GlslTypeFor(t, target_, std::string(OpcodeName(n.opcode)) + " " + n.Describe()));
  (void)g;
  if (t == ElementType::kS64 || t == ElementType::kU64) int64_ = true;
  if (IsComplex(t)) {
    (t == ElementType::kC128 ? needs_.complex_f64 : needs_.complex_f32) = true;
  } else if (IsFloat(t)) {
    (t == ElementType::kF64 ? needs_.real_f64 : needs_.real_f32) = true;
  }
  return OkStatus();
}

std::string Emitter::Temp(const std::string& type, const std::string& expr) {
  std::string name = "v" + std::to_string(next_temp_++);
  body_ += "    " + type + " " + name + " = " + expr + ";\n";
  return name;
}

std::string Emitter::Helper(const std::string& name, const std::string& definition) {
  helpers_.emplace(name, definition);
  return name;
}

StatusOr<std::string> Emitter::PhysicalIndex(const Shape& shape, const Layout& layout, const std::vector<std::string>& idx) {
  Shape placed = shape;
  placed.set_layout(layout);
  ASSIGN_OR_RETURN(TiledIndexMap map, TiledIndexMap::Create(placed));
  GlslIndexArithmetic a;
  return map.ToPhysical(idx, a);
}

Layout Emitter::LayoutOf(const Instruction* n) const {
  if (n == root_) return out_layout_;
  if (n->opcode == Opcode::kParameter || n->opcode == Opcode::kConstant) return input_layout_(n);
  return n->shape.layout_or_default();
}

// XLA's bitcast: the element at logical `idx` of the result sits at some
// physical position; the operand's element at that same physical position
// (through the operand's own layout) is the value.
StatusOr<std::string> Emitter::Reinterpret(const Instruction* n, const std::vector<std::string>& idx) {
  const Instruction* x = n->operands[0];
  Shape out = n->shape, in = x->shape;
  out.set_layout(LayoutOf(n));
  in.set_layout(LayoutOf(x));
  ASSIGN_OR_RETURN(TiledIndexMap out_map, TiledIndexMap::Create(out));
  ASSIGN_OR_RETURN(TiledIndexMap in_map, TiledIndexMap::Create(in));
  GlslIndexArithmetic a;
  const std::string q = Temp("uint", out_map.ToPhysical(idx, a));
  std::string valid;
  std::vector<std::string> in_idx = in_map.FromPhysical<GlslIndexArithmetic>(q, a, valid);
  if (valid != "true") {
    // That position is padding of the operand: its value is unspecified, so
    // read element 0 rather than anything out of bounds.
    const std::string ok = Temp("bool", valid);
    for (std::string& i : in_idx) i = "(" + ok + " ? " + i + " : 0u)";
  }
  for (std::string& i : in_idx) i = Temp("uint", i);
  return Value(x, in_idx);
}

// Data movement fuses as an index map: the element at `idx` of the result
// is an operand element at another index (or the padding value).
StatusOr<std::string> Emitter::MoveElements(const Instruction* n, const std::vector<std::string>& idx) {
  const Instruction* x = n->operands[0];
  GlslIndexArithmetic a;
  std::vector<std::string> in(idx);
  switch (n->opcode) {
    case Opcode::kReshape: {
      std::string linear = a.Constant(0);
      for (int64_t d = 0; d < n->shape.rank(); ++d) linear = a.Add(a.MulConstant(linear, n->shape.dim(d)), idx[d]);
      linear = Temp("uint", linear);
      in.assign(x->shape.rank(), "0u");
      int64_t stride = 1;
      for (int64_t d = x->shape.rank() - 1; d >= 0; --d) {
        std::string q = a.DivConstant(linear, stride);
        in[d] = d == 0 ? q : a.ModConstant(q, x->shape.dim(d));
        stride *= x->shape.dim(d);
      }
      break;
    }
    case Opcode::kTranspose:
      for (size_t d = 0; d < idx.size(); ++d) in[(*n->dimensions)[d]] = idx[d];
      break;
    case Opcode::kReverse:
      for (int64_t d : *n->dimensions) in[d] = "(" + U(x->shape.dim(d) - 1) + " - " + idx[d] + ")";
      break;
    case Opcode::kSlice: {
      ASSIGN_OR_RETURN(std::vector<SliceDimension> slice, SliceOf(*n));
      for (size_t d = 0; d < idx.size(); ++d) in[d] = a.Add(a.Constant(slice[d].start), a.MulConstant(idx[d], slice[d].stride));
      break;
    }
    case Opcode::kConcatenate: {
      // Every operand is read at a clamped index; the position picks one.
      const int64_t dim = (*n->dimensions)[0];
      std::string result;
      int64_t offset = 0;
      std::vector<std::pair<int64_t, std::string>> parts;
      for (const Instruction* o : n->operands) {
        std::vector<std::string> at(idx);
        const int64_t size = o->shape.dim(dim);
        if (size == 0) continue;
        const std::string shifted = offset == 0 ? idx[dim] : "(" + idx[dim] + " >= " + U(offset) + " ? " + idx[dim] + " - " + U(offset) + " : 0u)";
        at[dim] = Temp("uint", "min(" + shifted + ", " + U(size - 1) + ")");
        ASSIGN_OR_RETURN(std::string v, Value(o, at));
        offset += size;
        parts.emplace_back(offset, v);
      }
      result = parts.back().second;
      for (size_t k = parts.size() - 1; k-- > 0;) result = "(" + idx[dim] + " < " + U(parts[k].first) + " ? " + parts[k].second + " : " + result + ")";
      ASSIGN_OR_RETURN(GlslType g, GlslTypeFor(n->shape.element_type(), target_, n->Describe()));
      return Temp(g.compute, result);
    }
    case Opcode::kPad: {
      ASSIGN_OR_RETURN(std::vector<PaddingDimension> padding, PaddingOf(*n));
      std::string inside = "true";
      for (size_t d = 0; d < idx.size(); ++d) {
        const PaddingDimension& p = padding[d];
        const int64_t step = p.interior + 1;
        // t = idx - low as a signed value; inside when 0 <= t, t % step == 0, t / step < dim.
        const std::string t = Temp("int", "int(" + idx[d] + ") - " + std::to_string(p.low));
        std::string ok = "(" + t + " >= 0 && " + t + " < " + std::to_string((x->shape.dim(d) - 1) * step + 1) + ")";
        if (step > 1) ok = "(" + ok + " && (" + t + " % " + std::to_string(step) + ") == 0)";
        const std::string ok_d = Temp("bool", ok);
        inside = inside == "true" ? ok_d : inside + " && " + ok_d;
        const std::string src = step > 1 ? "uint(" + t + ") / " + U(step) : "uint(" + t + ")";
        in[d] = Temp("uint", ok_d + " ? " + src + " : 0u");
      }
      ASSIGN_OR_RETURN(std::string v, Value(x, in));
      ASSIGN_OR_RETURN(std::string pad, Value(n->operands[1], {}));
      ASSIGN_OR_RETURN(GlslType g, GlslTypeFor(n->shape.element_type(), target_, n->Describe()));
      return Temp(g.compute, "(" + inside + " ? " + v + " : " + pad + ")");
    }
    default:
      return Internal("not a data-movement op");
  }
  for (std::string& i : in) i = Temp("uint", i);
  return Value(x, in);
}

std::string Emitter::Bits64(ElementType t, const std::string& x) {
  switch (t) {
    case ElementType::kF64: return "unpackDouble2x32(" + x + ")";
    case ElementType::kS64: case ElementType::kU64: return "unpackUint2x32(uint64_t(" + x + "))";
    case ElementType::kC64: return "uvec2(floatBitsToUint(" + x + ".x), floatBitsToUint(" + x + ".y))";
    default: return "uvec2(" + EncodeToBits(t, x) + ", 0u)";
  }
}

std::string Emitter::FromBits64(ElementType t, const std::string& b) {
  switch (t) {
    case ElementType::kF64: return "packDouble2x32(" + b + ")";
    case ElementType::kS64: return "int64_t(packUint2x32(" + b + "))";
    case ElementType::kU64: return "packUint2x32(" + b + ")";
    case ElementType::kC64: return "vec2(uintBitsToFloat(" + b + ".x), uintBitsToFloat(" + b + ".y))";
    default: return "";
  }
}

StatusOr<std::string> Emitter::Value(const Instruction* n, const std::vector<std::string>& idx) {
  std::string key = n->name + "@";
  for (const std::string& i : idx) key += i + ",";
  auto it = memo_.find(key);
  if (it != memo_.end()) return it->second;
  ASSIGN_OR_RETURN(std::string v, Compute(n, idx));
  memo_[key] = v;
  return v;
}

StatusOr<std::string> Emitter::Compute(const Instruction* n, const std::vector<std::string>& idx) {
  const ElementType t = n->shape.element_type();
  if (n->shape.IsArray()) RETURN_IF_ERROR(Use(t, *n));
  ASSIGN_OR_RETURN(GlslType gt, GlslTypeFor(t, target_, n->Describe()));
  const std::string& ct = gt.compute;
  switch (n->opcode) {
    case Opcode::kConstant:
      if (n->shape.rank() == 0 || n->shape.element_count() == 1) return GlslLiteral(n->literal->Get(0));
      [[fallthrough]];
    case Opcode::kParameter: {
      if (!n->shape.IsArray()) return Unimplemented(n->Describe() + ": tuple parameters are not supported yet");
      auto [it, inserted] = binding_.emplace(n, static_cast<int>(inputs_.size()));
      if (inserted) inputs_.push_back(n);
      const Layout layout = input_layout_(n);
      ASSIGN_OR_RETURN(int bits, ElementStorageBits(t, layout));
      const std::string buffer = "in" + std::to_string(it->second);
      if (idx == root_index_ && n->shape.dims() == out_.dims() && layout == out_layout_ && bits == out_bits_) {
        // Same placement and element width as the output: this element sits
        // in the same word of the invocation's vector, loaded once up front.
        vector_loads_.insert(buffer);
        std::vector<std::string> words;
        for (int k = 0; k < WordsPerElement(t); ++k) words.push_back(buffer + "_v[ew + " + U(k) + "]");
        return Temp(ct, DecodeWords(t, words, "es", bits));
      }
      if (block_a_ >= 0 && idx == root_index_ && n->shape.dims() == out_.dims() && bits == 32 &&
          WordsPerElement(t) == 1) {
        Shape placed = n->shape;
        placed.set_layout(layout);
        ASSIGN_OR_RETURN(TiledIndexMap map, TiledIndexMap::Create(placed));
        const int64_t unit = map.has_padding() ? -1 : map.UnitStrideDimension(4);
        if (unit == block_b_ || unit == block_a_) {
          // Four vectors cover the block; the element is one word of them.
          std::map<std::string, std::string>& loads = unit == block_b_ ? row_loads_ : col_loads_;
          const int64_t step = unit == block_b_ ? block_a_ : block_b_;
          GlslIndexArithmetic a;
          std::string init;
          for (int k = 0; k < 4; ++k) {
            std::vector<std::string> at = block_base_;
            at[step] = a.Add(at[step], a.Constant(k));
            init += std::string(k ? ", " : "") + buffer + ".v[" + map.ToPhysical(at, a) + " >> 2u]";
          }
          loads[buffer] = init;
          const std::string word = unit == block_b_ ? buffer + "_r[ka][kb]" : buffer + "_c[kb][ka]";
          return Temp(ct, DecodeWords(t, {word}, "0u", bits));
        }
      }
      ASSIGN_OR_RETURN(std::string p, PhysicalIndex(n->shape, layout, idx));
      return Temp(ct, LoadExpression(t, buffer, p, bits));
    }
    case Opcode::kIota: {
      ASSIGN_OR_RETURN(std::string v, Convert(idx[n->iota_dimension], ElementType::kU32, t));
      return Temp(ct, v);
    }
    case Opcode::kBroadcast: {
      const Instruction* x = n->operands[0];
      std::vector<std::string> in_idx;
      for (size_t d = 0; d < n->dimensions->size(); ++d)
        in_idx.push_back(x->shape.dim(d) == 1 ? "0u" : idx[(*n->dimensions)[d]]);
      return Value(x, in_idx);
    }
    case Opcode::kBitcastConvert:
      return Bitcast(n, idx);
    case Opcode::kCopy:
      return Value(n->operands[0], idx);
    case Opcode::kReshape: case Opcode::kTranspose: case Opcode::kReverse: case Opcode::kSlice:
    case Opcode::kConcatenate: case Opcode::kPad:
      return MoveElements(n, idx);
    case Opcode::kBitcast:
      return Reinterpret(n, idx);
    default: break;
  }
  if (!IsElementwise(n->opcode))
    return Unimplemented(std::string(OpcodeName(n->opcode)) + " " + n->Describe() + ": not implemented on Vulkan yet");
  std::vector<std::string> ops;
  for (const Instruction* o : n->operands) {
    ASSIGN_OR_RETURN(std::string v, Value(o, o->shape.rank() == 0 ? std::vector<std::string>{} : idx));
    RETURN_IF_ERROR(Use(o->shape.element_type(), *n));
    ops.push_back(v);
  }
  std::string expr;
  if (n->opcode == Opcode::kSelect) {
    expr = "(" + ops[0] + " ? " + ops[1] + " : " + ops[2] + ")";
  } else if (n->opcode == Opcode::kClamp) {
    if (t == ElementType::kPred) expr = "((" + ops[1] + " || " + ops[0] + ") && " + ops[2] + ")";
    else if (IsFloat(t)) expr = "min_" + MathSuffix(t) + "(max_" + MathSuffix(t) + "(" + ops[1] + ", " + ops[0] + "), " + ops[2] + ")";
    else expr = "min(max(" + ops[1] + ", " + ops[0] + "), " + ops[2] + ")";
  } else if (n->operands.size() == 1) {
    ASSIGN_OR_RETURN(expr, Unary(*n, ops[0]));
  } else {
    ASSIGN_OR_RETURN(expr, Binary(*n, ops[0], ops[1]));
  }
  if (n->opcode != Opcode::kConvert && n->opcode != Opcode::kCompare && n->opcode != Opcode::kIsFinite)
    expr = NormalizeExpression(t, expr);
  return Temp(ct, expr);
}

StatusOr<std::string> Emitter::Unary(const Instruction& n, const std::string& x) {
  const ElementType it = n.operands[0]->shape.element_type();
  const ElementType t = n.shape.element_type();
  const std::string s = MathSuffix(it);
  const int bits = BitWidth(it);
  const std::string mask = bits >= 32 ? "0xFFFFFFFFu" : U((int64_t{1} << bits) - 1);
  ASSIGN_OR_RETURN(GlslType g, GlslTypeFor(t, target_, n.Describe()));
  switch (n.opcode) {
    case Opcode::kConvert: return Convert(x, it, t);
    case Opcode::kAbs:
      if (IsComplex(it)) return "cabs_" + s + "(" + x + ")";
      return "abs(" + x + ")";
    case Opcode::kNegate: return "(-" + x + ")";
    case Opcode::kSign:
      if (IsComplex(it)) return "csign_" + s + "(" + x + ")";
      if (IsFloat(it)) return "sign_" + s + "(" + x + ")";
      return "sign(" + x + ")";
    case Opcode::kNot: return it == ElementType::kPred ? "(!" + x + ")" : "(~" + x + ")";
    case Opcode::kPopulationCount:
      if (bits == 64) return g.compute + "(bitCount(unpackUint2x32(uint64_t(" + x + "))).x + bitCount(unpackUint2x32(uint64_t(" + x + "))).y)";
      return g.compute + "(bitCount(uint(" + x + ") & " + mask + "))";
    case Opcode::kClz:
      if (bits == 64)
        return g.compute + "(unpackUint2x32(uint64_t(" + x + ")).y != 0u ? 31 - findMSB(unpackUint2x32(uint64_t(" + x +
               ")).y) : 63 - findMSB(unpackUint2x32(uint64_t(" + x + ")).x))";
      return g.compute + "(" + std::to_string(bits - 1) + " - findMSB(uint(" + x + ") & " + mask + "))";
    case Opcode::kCeil: return "ceil(" + x + ")";
    case Opcode::kFloor: return "floor(" + x + ")";
    case Opcode::kRoundNearestEven: return "roundEven(" + x + ")";
    case Opcode::kRoundNearestAfz: return "round_afz_" + s + "(" + x + ")";
    case Opcode::kIsFinite: return "isfinite_" + s + "(" + x + ")";
    case Opcode::kReal: return IsComplex(it) ? x + ".x" : x;
    case Opcode::kImag: return IsComplex(it) ? x + ".y" : g.compute + "(0)";
    case Opcode::kReducePrecision: {
      if (it == ElementType::kF64) {
        if (!target_.int64)
          return Unimplemented("reduce-precision " + n.Describe() + " on f64 needs the device feature shaderInt64, which " +
                               target_.device_name + " lacks (or VKXLA_MASK hides)");
        int64_ = true;
        Helper("reduce_precision_f64",
               "double reduce_precision_f64(double x, uint eb, uint mb) {\n"
               "  uint64_t b = doubleBitsToUint64(x);\n"
               "  uint64_t sign = b & 0x8000000000000000ul, mag = b & 0x7FFFFFFFFFFFFFFFul;\n"
               "  if (mag > 0x7FF0000000000000ul) return mb == 0u ? uint64BitsToDouble(sign | 0x7FF0000000000000ul) : x;\n"
               "  if (mb < 52u) {\n    uint shift = 52u - mb;\n    uint64_t lsb = (mag >> shift) & 1ul;\n"
               "    mag += ((1ul << (shift - 1u)) - 1ul) + lsb;\n    mag &= ~((1ul << shift) - 1ul);\n  }\n"
               "  if (eb < 11u) {\n    int bias = int((1u << (eb - 1u)) - 1u);\n    int e = int(mag >> 52) - 1023;\n"
               "    if (mag >= 0x7FF0000000000000ul || e > bias) mag = 0x7FF0000000000000ul;\n"
               "    else if (e < 1 - bias) mag = 0ul;\n  }\n  return uint64BitsToDouble(sign | mag);\n}\n");
        return "reduce_precision_f64(" + x + ", " + U(std::min<int64_t>(n.exponent_bits, 31)) + ", " +
               U(std::min<int64_t>(n.mantissa_bits, 63)) + ")";
      }
      const std::string src_e = U(ExponentBits(it)), src_m = U(MantissaBits(it));
      std::string bits_expr = EncodeToBits(it, x);
      std::string reduced = "reduce_precision_bits(" + bits_expr + ", " + src_e + ", " + src_m + ", " +
                            U(std::min<int64_t>(n.exponent_bits, 31)) + ", " + U(std::min<int64_t>(n.mantissa_bits, 31)) + ")";
      switch (it) {
        case ElementType::kF32: return "uintBitsToFloat(" + reduced + ")";
        case ElementType::kF16: return "f16_to_f32(" + reduced + ")";
        case ElementType::kBF16: return "uintBitsToFloat(" + reduced + " << 16)";
        case ElementType::kF8E5M2: return "f16_to_f32(" + reduced + " << 8)";
        default: return "f8e4m3fn_to_f32(" + reduced + ")";
      }
    }
    default: break;
  }
  std::string fn = Transcendental(n.opcode);
  if (fn.empty()) return Unimplemented(std::string(OpcodeName(n.opcode)) + " " + n.Describe() + ": no Vulkan lowering");
  return (IsComplex(it) ? "c" : "") + fn + "_" + s + "(" + x + ")";
}

StatusOr<std::string> Emitter::Binary(const Instruction& n, const std::string& a, const std::string& b) {
  const ElementType t = n.operands[0]->shape.element_type();
  const std::string s = MathSuffix(t);
  ASSIGN_OR_RETURN(GlslType g, GlslTypeFor(t, target_, n.Describe()));
  const std::string& ct = g.compute;
  const bool is_signed = IsSignedInt(t), is_float = IsFloat(t), is_complex = IsComplex(t);
  const bool is_pred = t == ElementType::kPred;
  const int bits = BitWidth(t);
  const std::string zero = ct + "(0)";
  switch (n.opcode) {
    case Opcode::kAdd: return is_pred ? "(" + a + " || " + b + ")" : "(" + a + " + " + b + ")";
    case Opcode::kSubtract: return "(" + a + " - " + b + ")";
    case Opcode::kMultiply:
      if (is_pred) return "(" + a + " && " + b + ")";
      if (is_complex) return "cmul_" + s + "(" + a + ", " + b + ")";
      return "(" + a + " * " + b + ")";
    case Opcode::kDivide:
      if (is_complex) return "cdiv_" + s + "(" + a + ", " + b + ")";
      if (is_float) return "div_" + s + "(" + a + ", " + b + ")";
      if (is_signed) {
        // XLA: x/0 = -1; INT_MIN/-1 = INT_MIN (narrow types wrap there by themselves).
        std::string safe = "((" + b + ") == " + zero + " || (" + b + ") == " + ct + "(-1) ? " + ct + "(1) : (" + b + "))";
        return "((" + b + ") == " + zero + " ? " + ct + "(-1) : (" + b + ") == " + ct + "(-1) ? -(" + a + ") : (" + a + ") / " + safe + ")";
      }
      return "((" + b + ") == " + zero + " ? ~" + zero + " : (" + a + ") / ((" + b + ") == " + zero + " ? " + ct + "(1) : (" + b + ")))";
    case Opcode::kRemainder:
      if (is_float) return "fmod_" + s + "(" + a + ", " + b + ")";
      if (is_signed) {
        std::string safe = "((" + b + ") == " + zero + " || (" + b + ") == " + ct + "(-1) ? " + ct + "(1) : (" + b + "))";
        return "((" + b + ") == " + zero + " ? (" + a + ") : (" + b + ") == " + ct + "(-1) ? " + zero + " : (" + a +
               ") - ((" + a + ") / " + safe + ") * " + safe + ")";
      }
      return "((" + b + ") == " + zero + " ? (" + a + ") : (" + a + ") % ((" + b + ") == " + zero + " ? " + ct + "(1) : (" + b + ")))";
    case Opcode::kPower: {
      if (is_complex) return "cpow_" + s + "(" + a + ", " + b + ")";
      if (is_float) return "pow_" + s + "(" + a + ", " + b + ")";
      std::string name = "ipow_" + std::string(ElementTypeName(t));
      std::string neg = is_signed ? "  if (e < " + zero + ") return x == " + ct + "(1) ? " + ct + "(1) : x == " + ct +
                                        "(-1) ? ((e & " + ct + "(1)) != " + zero + " ? " + ct + "(-1) : " + ct + "(1)) : " + zero + ";\n"
                                  : "";
      Helper(name, ct + " " + name + "(" + ct + " x, " + ct + " e) {\n" + neg + "  " + ct + " r = " + ct +
                       "(1);\n  for (int i = 0; i < " + std::to_string(bits) + " && e != " + zero +
                       "; ++i) {\n    if ((e & " + ct + "(1)) != " + zero + ") r = " + NormalizeExpression(t, "r * x") +
                       ";\n    x = " + NormalizeExpression(t, "x * x") + ";\n    e = e >> 1;\n  }\n  return r;\n}\n");
      return name + "(" + a + ", " + b + ")";
    }
    case Opcode::kAtan2:
      return (is_complex ? "catan2_" : "atan2_") + s + "(" + a + ", " + b + ")";
    case Opcode::kMaximum:
      if (is_pred) return "(" + a + " || " + b + ")";
      return is_float ? "max_" + s + "(" + a + ", " + b + ")" : "max(" + a + ", " + b + ")";
    case Opcode::kMinimum:
      if (is_pred) return "(" + a + " && " + b + ")";
      return is_float ? "min_" + s + "(" + a + ", " + b + ")" : "min(" + a + ", " + b + ")";
    case Opcode::kAnd: return is_pred ? "(" + a + " && " + b + ")" : "(" + a + " & " + b + ")";
    case Opcode::kOr: return is_pred ? "(" + a + " || " + b + ")" : "(" + a + " | " + b + ")";
    case Opcode::kXor: return is_pred ? "(" + a + " ^^ " + b + ")" : "(" + a + " ^ " + b + ")";
    case Opcode::kShiftLeft:
    case Opcode::kShiftRightLogical:
    case Opcode::kShiftRightArithmetic: {
      // Amounts are read as unsigned; >= width gives 0 (or sign bits).
      const bool wide = bits == 64;
      const std::string ut = wide ? "uint64_t" : "uint";
      const std::string st = wide ? "int64_t" : "int";
      const std::string m = wide ? "0xFFFFFFFFFFFFFFFFul" : (bits >= 32 ? "0xFFFFFFFFu" : U((int64_t{1} << bits) - 1));
      const std::string amount = "(" + ut + "(" + b + ") & " + m + ")";
      const std::string w = wide ? "64ul" : U(bits);
      const std::string xu = "(" + ut + "(" + a + ") & " + m + ")";
      std::string r;
      if (n.opcode == Opcode::kShiftLeft) r = "(" + amount + " >= " + w + " ? " + ut + "(0) : " + xu + " << " + amount + ")";
      else if (n.opcode == Opcode::kShiftRightLogical) r = "(" + amount + " >= " + w + " ? " + ut + "(0) : " + xu + " >> " + amount + ")";
      else {
        std::string sx = bits == 32 || wide ? st + "(" + xu + ")" : "bitfieldExtract(int(" + xu + "), 0, " + std::to_string(bits) + ")";
        std::string lim = wide ? "63ul" : U(bits - 1);
        r = "(" + sx + " >> min(" + amount + ", " + lim + "))";
      }
      return ct + "(" + r + ")";
    }
    case Opcode::kComplex: return (t == ElementType::kF64 ? "dvec2(" : "vec2(") + a + ", " + b + ")";
    case Opcode::kCompare: {
      const ComparisonDirection d = n.direction;
      if (is_complex) {
        std::string eq = "(" + a + ".x == " + b + ".x && " + a + ".y == " + b + ".y)";
        return d == ComparisonDirection::kEq ? eq : "(!" + eq + ")";
      }
      std::string x = a, y = b;
      if (is_pred) { x = "uint(" + a + ")"; y = "uint(" + b + ")"; }
      if (is_float && n.comparison_type == ComparisonType::kTotalOrder) {
        if (t == ElementType::kF64) {
          std::string cmp = Helper("tcmp_double",
              "ivec2 tkey_double(double v) {\n  uvec2 b = unpackDouble2x32(v);\n"
              "  if ((b.y & 0x80000000u) != 0u) b = uvec2(~b.x, b.y ^ 0x7FFFFFFFu);\n"
              "  return ivec2(int(b.y), int(b.x ^ 0x80000000u));\n}\n"
              "int tcmp_double(double a, double b) {\n  ivec2 x = tkey_double(a), y = tkey_double(b);\n"
              "  if (x.x != y.x) return x.x < y.x ? -1 : 1;\n  if (x.y != y.y) return x.y < y.y ? -1 : 1;\n  return 0;\n}\n");
          x = cmp + "(" + a + ", " + b + ")";
          y = "0";
        } else {
          Helper("tkey_float", "int tkey_float(float v) {\n  int b = floatBitsToInt(v);\n  return b < 0 ? (b ^ 0x7FFFFFFF) : b;\n}\n");
          x = "tkey_float(" + a + ")";
          y = "tkey_float(" + b + ")";
        }
      }
      switch (d) {
        case ComparisonDirection::kEq: return "(" + x + " == " + y + ")";
        case ComparisonDirection::kNe: return "(!(" + x + " == " + y + "))";
        case ComparisonDirection::kLt: return "(" + x + " < " + y + ")";
        case ComparisonDirection::kLe: return "(" + x + " <= " + y + ")";
        case ComparisonDirection::kGt: return "(" + x + " > " + y + ")";
        case ComparisonDirection::kGe: return "(" + x + " >= " + y + ")";
      }
      return std::string("false");
    }
    default:
      return Unimplemented(std::string(OpcodeName(n.opcode)) + " " + n.Describe() + ": no Vulkan lowering");
  }
}

StatusOr<std::string> Emitter::Convert(const std::string& x, ElementType from, ElementType to) {
  if (from == to) return x;
  ASSIGN_OR_RETURN(GlslType g, GlslTypeFor(to, target_, "convert"));
  const std::string& ct = g.compute;
  if (to == ElementType::kPred) {
    if (from == ElementType::kPred) return x;
    if (IsComplex(from)) return "(!(" + x + ".x == 0.0 && " + x + ".y == 0.0))";
    if (IsFloat(from)) return "(!(" + x + " == 0.0))";
    return "(" + x + " != " + (IsSignedInt(from) ? (BitWidth(from) == 64 ? "0l" : "0") : (BitWidth(from) == 64 ? "0ul" : "0u")) + ")";
  }
  if (from == ElementType::kPred) {
    if (IsComplex(to)) return ct + "(" + (to == ElementType::kC128 ? "double" : "float") + "(" + x + "), 0.0)";
    return ct + "(" + x + ")";
  }
  if (IsComplex(to)) {
    const ElementType part = ComplexComponentType(to);
    if (IsComplex(from)) return ct + "(" + x + ")";
    ASSIGN_OR_RETURN(std::string re, Convert(x, from, part));
    return ct + "(" + re + ", 0.0)";
  }
  if (IsInteger(to)) {
    if (IsInteger(from)) return NormalizeExpression(to, ct + "(" + x + ")");
    // Float to integer: saturate, NaN to 0, truncate toward zero.
    RETURN_IF_ERROR(Use(from, Instruction()));
    const int bits = BitWidth(to);
    const std::string s = MathSuffix(from);
    const std::string fl = s;  // compare in the source float type
    auto pow2 = [&](int k) { return fl + "(" + std::to_string(static_cast<double>(int64_t{1} << std::min(k, 62)) * (k > 62 ? 2.0 : 1.0)) + (s == "double" ? "LF" : "") + ")"; };
    std::string lo, hi, lo_v, hi_v;
    if (IsSignedInt(to)) {
      lo = "-" + pow2(bits - 1);
      hi = pow2(bits - 1);
      lo_v = bits == 64 ? "int64_t(0x8000000000000000ul)" : "int(" + std::to_string(-(int64_t{1} << (bits - 1))) + ")";
      hi_v = bits == 64 ? "int64_t(0x7FFFFFFFFFFFFFFFul)" : "int(" + std::to_string((int64_t{1} << (bits - 1)) - 1) + ")";
    } else {
      lo = fl + "(0)";
      hi = pow2(bits);
      lo_v = ct + "(0)";
      hi_v = bits == 64 ? "0xFFFFFFFFFFFFFFFFul" : U((int64_t{1} << bits) - 1);
    }
    return "(isnan_" + s + "(" + x + ") ? " + ct + "(0) : " + x + " <= " + lo + " ? " + lo_v + " : " + x + " >= " + hi +
           " ? " + hi_v + " : " + ct + "(" + x + "))";
  }
  // To a real float.
  if (IsComplex(from)) return Unimplemented("convert from complex to real");
  if (to == ElementType::kF64) return "double(" + x + ")";
  if (from == ElementType::kF64) {
    if (to == ElementType::kF32) return "float(" + x + ")";
    // Round to odd in f32 first so the second rounding is exact.
    Helper("d2f_odd", "float d2f_odd(double d) {\n  float f = float(d);\n  if (double(f) != d && (floatBitsToUint(f) & 1u) == 0u)\n"
                      "    f = uintBitsToFloat(floatBitsToUint(f) + ((double(f) < d) == (f > 0.0) ? 1u : 0xFFFFFFFFu));\n  return f;\n}\n");
    return NormalizeExpression(to, "d2f_odd(" + x + ")");
  }
  return NormalizeExpression(to, "float(" + x + ")");
}

StatusOr<std::string> Emitter::Bitcast(const Instruction* n, const std::vector<std::string>& idx) {
  const Instruction* x = n->operands[0];
  const ElementType from = x->shape.element_type(), to = n->shape.element_type();
  RETURN_IF_ERROR(Use(from, *n));
  RETURN_IF_ERROR(Use(to, *n));
  ASSIGN_OR_RETURN(GlslType g, GlslTypeFor(to, target_, n->Describe()));
  const int fb = BitWidth(from), tb = BitWidth(to);
  if (fb > 64 || tb > 64) return Unimplemented("bitcast-convert " + n->Describe() + ": 128-bit types are not supported on Vulkan yet");
  if (fb == 4 || tb == 4) return Unimplemented("bitcast-convert " + n->Describe() + ": 4-bit types are not supported on Vulkan yet");
  auto decode32 = [&](ElementType t, const std::string& bits) -> std::string {
    switch (t) {
      case ElementType::kPred: return "(" + bits + " != 0u)";
      case ElementType::kS8: return "bitfieldExtract(int(" + bits + "), 0, 8)";
      case ElementType::kS16: return "bitfieldExtract(int(" + bits + "), 0, 16)";
      case ElementType::kS32: return "int(" + bits + ")";
      case ElementType::kU8: case ElementType::kU16: case ElementType::kU32: return bits;
      case ElementType::kF32: return "uintBitsToFloat(" + bits + ")";
      case ElementType::kF16: return "f16_to_f32(" + bits + ")";
      case ElementType::kBF16: return "uintBitsToFloat((" + bits + ") << 16)";
      case ElementType::kF8E5M2: return "f16_to_f32((" + bits + ") << 8)";
      case ElementType::kF8E4M3FN: return "f8e4m3fn_to_f32(" + bits + ")";
      default: return "0";
    }
  };
  if (fb == tb) {
    ASSIGN_OR_RETURN(std::string v, Value(x, idx));
    if (fb == 64) return Temp(g.compute, FromBits64(to, Bits64(from, v)));
    return Temp(g.compute, decode32(to, EncodeToBits(from, v)));
  }
  if (fb > tb) {
    // Narrower result: its minor-most index picks a part, low bits first.
    std::vector<std::string> in_idx(idx.begin(), idx.end() - 1);
    ASSIGN_OR_RETURN(std::string v, Value(x, in_idx));
    std::string b = Temp("uvec2", Bits64(from, v));
    std::string bit = "(" + idx.back() + " * " + U(tb) + ")";
    std::string part = tb == 32 ? "(" + bit + " == 0u ? " + b + ".x : " + b + ".y)"
                                : "bitfieldExtract(" + bit + " < 32u ? " + b + ".x : " + b + ".y, int(" + bit + " % 32u), " + std::to_string(tb) + ")";
    return Temp(g.compute, decode32(to, part));
  }
  // Wider result: gather the parts from the operand's minor-most dimension.
  std::string lo = "0u", hi = "0u";
  for (int k = 0; k < tb / fb; ++k) {
    std::vector<std::string> in_idx = idx;
    in_idx.push_back(U(k));
    ASSIGN_OR_RETURN(std::string v, Value(x, in_idx));
    std::string bits = fb == 64 ? "" : EncodeToBits(from, v);
    int at = k * fb;
    if (fb == 32) (at == 0 ? lo : hi) = bits;
    else (at < 32 ? lo : hi) += " | (" + bits + " << " + U(at % 32) + ")";
  }
  std::string word = Temp("uvec2", "uvec2(" + lo + ", " + hi + ")");
  if (tb == 64) return Temp(g.compute, FromBits64(to, word));
  return Temp(g.compute, decode32(to, word + ".x"));
}

StatusOr<KernelSource> Emitter::Emit(const Instruction& root, const Shape& out) {
  root_ = &root;
  out_ = out;
  out_layout_ = out.layout_or_default();
  const ElementType t = out.element_type();
  RETURN_IF_ERROR(Use(t, root));
  ASSIGN_OR_RETURN(GlslType gt, GlslTypeFor(t, target_, root.Describe()));
  ASSIGN_OR_RETURN(out_bits_, ElementStorageBits(t, out_layout_));
  ASSIGN_OR_RETURN(TiledIndexMap out_map, TiledIndexMap::Create(out));
  const int64_t physical = out_map.physical_element_count();
  if (physical >= (int64_t{1} << 32))
    return Unimplemented(root.Describe() + ": arrays of 2^32 elements or more are not supported (" + out.ToString() + ")");
  // Each invocation owns one uvec4 of the output, `per_vector` physical
  // elements, and loops over them; ew/es name the current element's word in
  // the vector and its slot within the word.
  const int per_word = out_bits_ >= 32 ? 1 : 32 / out_bits_, words_per_element = WordsPerElement(t);
  const int per_vector = per_word * 4 / words_per_element;
  const uint64_t vectors = static_cast<uint64_t>((physical + per_vector - 1) / per_vector);

  // Block mode when the output moves along one dim in vectors and some
  // operand along another: a transpose in registers keeps every load and
  // store a whole uvec4.
  if (per_word == 1 && words_per_element == 1 && !out_map.has_padding()) {
    const int64_t unit = out_map.UnitStrideDimension(4);
    std::set<const Instruction*> seen;
    if (unit >= 0) {
      const int64_t b = FindTransposedOperand(&root, unit, seen);
      if (b >= 0) {
        block_a_ = unit;
        block_b_ = b;
        return EmitBlocked(root, out_map);
      }
    }
  }
  // The logical index of physical element p; padding elements have none.
  GlslIndexArithmetic a;
  std::string valid;
  root_index_ = out_map.FromPhysical<GlslIndexArithmetic>("p", a, valid);
  std::string decompose;
  for (int64_t d = 0; d < out.rank(); ++d) {
    if (root_index_[d].find_first_not_of("0123456789u") == std::string::npos) continue;  // a constant
    decompose += "      uint i" + std::to_string(d) + " = " + root_index_[d] + ";\n";
    root_index_[d] = "i" + std::to_string(d);
  }
  ASSIGN_OR_RETURN(std::string v, Value(&root, root_index_));
  std::string guard = physical % per_vector == 0 ? "" : "p < " + U(physical);
  if (valid != "true") guard += (guard.empty() ? "" : " && ") + valid;

  std::string body = "  for (uint e = 0u; e < " + U(per_vector) + "; ++e) {\n";
  body += "    uint p = inv * " + U(per_vector) + " + e;\n";
  body += "    uint ew = " + (per_word > 1 ? std::string("e >> ") + U(per_word == 2 ? 1 : per_word == 4 ? 2 : 3)
                                           : words_per_element > 1 ? "e * " + U(words_per_element) : std::string("e")) + ";\n";
  body += "    uint es = " + (per_word > 1 ? "e & " + U(per_word - 1) : std::string("0u")) + ";\n";
  if (!guard.empty()) body += "    if (" + guard + ") {\n";
  body += decompose + body_;
  if (per_word > 1) {
    body += "      outv[ew] |= " + EncodeToBits(t, v) + " << " + SlotBitOffset(out_bits_, "es") + ";\n";
  } else if (words_per_element == 1) {
    body += "      outv[ew] = " + EncodeToBits(t, v) + ";\n";
  } else if (t == ElementType::kC128) {
    body += "      outv = uvec4(unpackDouble2x32(" + v + ".x), unpackDouble2x32(" + v + ".y));\n";
  } else {
    body += "      uvec2 bits = " + Bits64(t, v) + ";\n      outv[ew] = bits.x;\n      outv[ew + 1u] = bits.y;\n";
  }
  if (!guard.empty()) body += "    }\n";
  body += "  }\n";

  KernelSource k;
  k.name = "fusion_" + root.name;
  k.inputs = inputs_;
  k.output = out;
  k.invocations = vectors;
  k.local_size = 256;
  std::string src = Prologue(k.local_size, k.name);
  src += "  if (inv >= " + U(vectors) + ") return;\n";
  for (const std::string& b : vector_loads_) src += "  uvec4 " + b + "_v = " + b + ".v[inv];\n";
  src += "  uvec4 outv = uvec4(0u);\n" + body + "  out0.v[inv] = outv;\n}\n";
  k.glsl = std::move(src);
  return k;
}

std::string Emitter::Prologue(uint32_t local_size, const std::string& name) const {
  std::string src = "#version 450\n";
  if (int64_) src += "#extension GL_ARB_gpu_shader_int64 : require\n";
  src += "// kernel " + name + ": " + out_.ToString() + "\n";
  src += "layout(local_size_x = " + std::to_string(local_size) + ") in;\n";
  src += "#define W(b, i) b.v[(i) >> 2u][(i) & 3u]\n";
  for (size_t i = 0; i < inputs_.size(); ++i)
    src += "layout(std430, set = 0, binding = " + std::to_string(i) + ") readonly buffer In" + std::to_string(i) +
           " { uvec4 v[]; } in" + std::to_string(i) + ";\n";
  src += "layout(std430, set = 0, binding = " + std::to_string(inputs_.size()) + ") writeonly buffer Out0 { uvec4 v[]; } out0;\n";
  src += ShaderLibrarySource(needs_, target_.float64);
  for (const auto& [helper, def] : helpers_) src += def;
  src += "void main() {\n  uint inv = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * " +
         U(local_size) + ";\n";
  return src;
}

int64_t Emitter::FindTransposedOperand(const Instruction* n, int64_t a, std::set<const Instruction*>& seen) {
  if (!seen.insert(n).second || n->shape.dims() != out_.dims()) return -1;
  if (n->opcode == Opcode::kParameter || (n->opcode == Opcode::kConstant && n->shape.element_count() > 1)) {
    Shape placed = n->shape;
    placed.set_layout(input_layout_(n));
    auto map = TiledIndexMap::Create(placed);
    auto bits = ElementStorageBits(n->shape.element_type(), placed.layout_or_default());
    if (!map.ok() || !bits.ok() || *bits != 32 || map->has_padding()) return -1;
    const int64_t b = map->UnitStrideDimension(4);
    return b != a ? b : -1;
  }
  // Only ops that read their operands at the same index pass the block on.
  if (!IsElementwise(n->opcode) && n->opcode != Opcode::kCopy) return -1;
  if (n->opcode == Opcode::kBitcastConvert && BitWidth(n->shape.element_type()) != BitWidth(n->operands[0]->shape.element_type()))
    return -1;
  for (const Instruction* o : n->operands) {
    const int64_t b = FindTransposedOperand(o, a, seen);
    if (b >= 0) return b;
  }
  return -1;
}

StatusOr<KernelSource> Emitter::EmitBlocked(const Instruction& root, const TiledIndexMap& out_map) {
  const ElementType t = root.shape.element_type();
  const int64_t a_dim = block_a_, b_dim = block_b_;
  if (out_.dim(a_dim) % 4 != 0 || out_.dim(b_dim) % 4 != 0)
    return Internal("block mode needs dims divisible by 4");
  // Block coordinates: b fastest (consecutive invocations read consecutive
  // input vectors), then a, then the other dims, minor-most logical first.
  std::vector<int64_t> order = {b_dim, a_dim};
  for (int64_t d = out_.rank() - 1; d >= 0; --d)
    if (d != a_dim && d != b_dim) order.push_back(d);
  GlslIndexArithmetic a;
  std::string decompose;
  block_base_.assign(out_.rank(), "0u");
  int64_t stride = 1, blocks = 1;
  for (int64_t d : order) {
    const int64_t extent = (d == a_dim || d == b_dim) ? out_.dim(d) / 4 : out_.dim(d);
    std::string c = a.DivConstant("inv", stride);
    if (stride * extent < out_.element_count() / 16) c = a.ModConstant(c, extent);
    if (d == a_dim || d == b_dim) c = a.MulConstant(c, 4);
    decompose += "  uint b" + std::to_string(d) + " = " + c + ";\n";
    block_base_[d] = "b" + std::to_string(d);
    stride *= extent;
    blocks *= extent;
  }
  root_index_ = block_base_;
  root_index_[a_dim] = "(b" + std::to_string(a_dim) + " + ka)";
  root_index_[b_dim] = "(b" + std::to_string(b_dim) + " + kb)";
  ASSIGN_OR_RETURN(std::string v, Value(&root, root_index_));

  KernelSource k;
  k.name = "fusion_" + root.name + "_block4x4";
  k.inputs = inputs_;
  k.output = out_;
  k.invocations = static_cast<uint64_t>(blocks);
  k.local_size = 256;
  std::string src = Prologue(k.local_size, k.name);
  src += "  if (inv >= " + U(blocks) + ") return;\n" + decompose;
  for (const auto& [buffer, init] : row_loads_) src += "  uvec4 " + buffer + "_r[4] = uvec4[4](" + init + ");\n";
  for (const auto& [buffer, init] : col_loads_) src += "  uvec4 " + buffer + "_c[4] = uvec4[4](" + init + ");\n";
  src += "  uvec4 outv[4];\n";
  // No [[unroll]]: spirv-opt's unrolling loses the NoContraction that the
  // math library's error-free transforms need (division stops being exact).
  src += "  for (uint e = 0u; e < 16u; ++e) {\n    uint ka = e & 3u, kb = e >> 2u;\n";
  src += body_ + "    outv[kb][ka] = " + EncodeToBits(t, v) + ";\n  }\n";
  for (int kb = 0; kb < 4; ++kb) {
    std::vector<std::string> at = block_base_;
    at[b_dim] = a.Add(at[b_dim], a.Constant(kb));
    src += "  out0.v[" + out_map.ToPhysical(at, a) + " >> 2u] = outv[" + std::to_string(kb) + "];\n";
  }
  src += "}\n";
  k.glsl = std::move(src);
  return k;
}

}  // namespace

bool IsFusible(const Instruction& inst) {
  return IsElementwise(inst.opcode) || inst.opcode == Opcode::kBroadcast || inst.opcode == Opcode::kIota ||
         inst.opcode == Opcode::kCopy || inst.opcode == Opcode::kBitcast || IsDataMovement(inst.opcode) ||
         (inst.opcode == Opcode::kConstant && inst.shape.IsArray());
}

StatusOr<KernelSource> EmitElementwiseKernel(const Instruction& root, const Shape& output_with_layout,
                                             const std::function<Layout(const Instruction*)>& input_layout,
                                             const TargetFeatures& target) {
  Emitter e(target, input_layout);
  return e.Emit(root, output_with_layout);
}

}  // namespace vkxla
