#include "ops/dot.h"

#include <algorithm>
#include <complex>
#include <map>
#include <set>

#include "ir/float_formats.h"
#include "ops/attributes.h"
#include "ops/dot_arithmetic.h"

namespace vkxla {
namespace {

Status DotError(const Instruction& inst, const std::string& message) {
  return InvalidArgument(std::string(OpcodeName(inst.opcode)) + " " + inst.Describe() + ": " + message);
}

std::string Dims(const std::vector<int64_t>& d) { return IntListText(d); }

// Which family of types an element type computes in.
enum class Family { kPred, kInt, kFloat, kComplex, kOther };
Family FamilyOf(ElementType t) {
  if (t == ElementType::kPred) return Family::kPred;
  if (IsInteger(t)) return Family::kInt;
  if (IsFloat(t)) return Family::kFloat;
  if (IsComplex(t)) return Family::kComplex;
  return Family::kOther;
}

Status CheckDims(const Instruction& inst, const Shape& x, const std::string& side, const std::vector<int64_t>& batch,
                 const std::vector<int64_t>& contracting) {
  std::set<int64_t> seen;
  for (const std::vector<int64_t>* list : {&batch, &contracting})
    for (int64_t d : *list) {
      if (d < 0 || d >= x.rank())
        return DotError(inst, side + " dimension " + std::to_string(d) + " in " + side + "_batch_dims=" + Dims(batch) + ", " +
                                  side + "_contracting_dims=" + Dims(contracting) + " is out of range for " + x.ToString());
      if (!seen.insert(d).second)
        return DotError(inst, side + " dimension " + std::to_string(d) + " is named twice in " + side + "_batch_dims=" +
                                  Dims(batch) + ", " + side + "_contracting_dims=" + Dims(contracting) + " of " + x.ToString());
    }
  return OkStatus();
}

StatusOr<std::vector<std::string>> PrecisionsOf(const Instruction& inst) {
  std::vector<std::string> out;
  const std::string* text = FindAttribute(inst, "operand_precision");
  if (!text) return out;
  std::string t = *text, cur;
  if (t.size() < 2 || t.front() != '{' || t.back() != '}') return BadAttribute(inst, "operand_precision", t, "{default,default}");
  for (char ch : t.substr(1, t.size() - 2)) {
    if (ch == ',') {
      out.push_back(cur);
      cur.clear();
    } else if (ch != ' ') {
      cur += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    }
  }
  if (!cur.empty()) out.push_back(cur);
  for (const std::string& p : out)
    if (p != "default" && p != "high" && p != "highest")
      return BadAttribute(inst, "operand_precision", t, "two of default, high, highest");
  if (out.size() != 2) return BadAttribute(inst, "operand_precision", t, "two of default, high, highest");
  return out;
}

}  // namespace

StatusOr<DotDimensions> DotDimensionsOf(const Instruction& inst) {
  DotDimensions d;
  VKXLA_ASSIGN_OR_RETURN(d.lhs_batch, IntListAttribute(inst, "lhs_batch_dims", false));
  VKXLA_ASSIGN_OR_RETURN(d.rhs_batch, IntListAttribute(inst, "rhs_batch_dims", false));
  VKXLA_ASSIGN_OR_RETURN(d.lhs_contracting, IntListAttribute(inst, "lhs_contracting_dims", false));
  VKXLA_ASSIGN_OR_RETURN(d.rhs_contracting, IntListAttribute(inst, "rhs_contracting_dims", false));
  const bool written = FindAttribute(inst, "lhs_contracting_dims") || FindAttribute(inst, "rhs_contracting_dims") ||
                       FindAttribute(inst, "lhs_batch_dims") || FindAttribute(inst, "rhs_batch_dims");
  if (!written && inst.operands.size() >= 2 && inst.operands[0]->shape.IsArray() && inst.operands[1]->shape.IsArray() &&
      inst.operands[0]->shape.rank() >= 1 && inst.operands[1]->shape.rank() >= 1) {
    // Dot: lhs's second dim (its only one for a vector) with rhs's first.
    d.lhs_contracting = {inst.operands[0]->shape.rank() - 1};
    d.rhs_contracting = {0};
  }
  return d;
}

void SetDotDimensions(Instruction& inst, const DotDimensions& d) {
  if (!d.lhs_batch.empty() || !d.rhs_batch.empty()) {
    SetAttribute(inst, "lhs_batch_dims", IntListText(d.lhs_batch));
    SetAttribute(inst, "rhs_batch_dims", IntListText(d.rhs_batch));
  }
  SetAttribute(inst, "lhs_contracting_dims", IntListText(d.lhs_contracting));
  SetAttribute(inst, "rhs_contracting_dims", IntListText(d.rhs_contracting));
}

StatusOr<DotAlgorithm> ParseDotAlgorithm(const std::string& name) {
  static const std::map<std::string, DotAlgorithm> kAlgorithms = {
      {"dot_any_f8_any_f8_f32", {}},
      {"dot_any_f8_any_f8_f32_fast_accum", {}},
      {"dot_f16_f16_f16", {ElementType::kF16, ElementType::kF16, false}},
      {"dot_f16_f16_f32", {ElementType::kF16, ElementType::kF16, false}},
      {"dot_bf16_bf16_bf16", {ElementType::kBF16, ElementType::kBF16, false}},
      {"dot_bf16_bf16_f32", {ElementType::kBF16, ElementType::kBF16, false}},
      // Several bf16 components emulate f32: at least f32's precision.
      {"dot_bf16_bf16_f32_x3", {}},
      {"dot_bf16_bf16_f32_x6", {}},
      {"dot_bf16_bf16_f32_x9", {}},
      {"dot_tf32_tf32_f32", {ElementType::kInvalid, ElementType::kInvalid, true}},
      {"dot_tf32_tf32_f32_x3", {}},
      {"dot_f32_f32_f32", {}},
      {"dot_f64_f64_f64", {}},
  };
  auto it = kAlgorithms.find(name);
  if (it != kAlgorithms.end()) return it->second;
  std::string known;
  for (const auto& [k, v] : kAlgorithms) known += (known.empty() ? "" : ", ") + k;
  return InvalidArgument("dot algorithm " + name + " is not supported; supported: " + known);
}

Status CheckProductOperands(const Instruction& inst, const Shape& lhs, const Shape& rhs) {
  // Operands of one family (ints of any width and sign, floats of any
  // precision, complex), the result of the same family.
  const Family fl = FamilyOf(lhs.element_type()), fr = FamilyOf(rhs.element_type());
  const bool complex_mix = (fl == Family::kComplex && fr == Family::kFloat) || (fl == Family::kFloat && fr == Family::kComplex);
  if (fl == Family::kOther || fr == Family::kOther || (fl != fr && !complex_mix))
    return DotError(inst, "operands " + lhs.ToString() + " and " + rhs.ToString() +
                              " must both be pred, integers, floats or complex");
  if (inst.shape.IsArray()) {
    const Family fo = FamilyOf(inst.shape.element_type());
    const bool ok = fo == fl || fo == fr || (fo == Family::kComplex && complex_mix);
    if (!ok)
      return DotError(inst, "result " + inst.shape.ToString() + " must be of the operands' kind (" + lhs.ToString() + ", " +
                                rhs.ToString() + ")");
  }
  VKXLA_RETURN_IF_ERROR(PrecisionsOf(inst).status());
  if (const std::string* a = FindAttribute(inst, "algorithm")) {
    StatusOr<DotAlgorithm> alg = ParseDotAlgorithm(*a);
    if (!alg.ok()) return DotError(inst, alg.status().message());
  }
  return OkStatus();
}

StatusOr<DotPlan> PlanDot(const Instruction& inst) {
  const size_t operands = inst.opcode == Opcode::kRaggedDot ? 3 : inst.opcode == Opcode::kScaledDot ? 4 : 2;
  if (inst.operands.size() != operands)
    return DotError(inst, "expects " + std::to_string(operands) + " operands, got " + std::to_string(inst.operands.size()));
  const Shape& lhs = inst.operands[0]->shape;
  const Shape& rhs = inst.operands[1]->shape;
  if (!lhs.IsArray() || !rhs.IsArray()) return DotError(inst, "operands must be arrays, got " + lhs.ToString() + " and " + rhs.ToString());
  DotPlan p;
  VKXLA_ASSIGN_OR_RETURN(p.dims, DotDimensionsOf(inst));
  const DotDimensions& d = p.dims;
  const std::string numbers = "lhs_batch_dims=" + Dims(d.lhs_batch) + ", rhs_batch_dims=" + Dims(d.rhs_batch) +
                              ", lhs_contracting_dims=" + Dims(d.lhs_contracting) +
                              ", rhs_contracting_dims=" + Dims(d.rhs_contracting);
  if (d.lhs_batch.size() != d.rhs_batch.size())
    return DotError(inst, "lhs and rhs must have as many batch dims (" + numbers + ") for " + lhs.ToString() + " and " + rhs.ToString());
  if (d.lhs_contracting.size() != d.rhs_contracting.size())
    return DotError(inst, "lhs and rhs must have as many contracting dims (" + numbers + ") for " + lhs.ToString() + " and " +
                              rhs.ToString());
  VKXLA_RETURN_IF_ERROR(CheckDims(inst, lhs, "lhs", d.lhs_batch, d.lhs_contracting));
  VKXLA_RETURN_IF_ERROR(CheckDims(inst, rhs, "rhs", d.rhs_batch, d.rhs_contracting));
  for (size_t i = 0; i < d.lhs_batch.size(); ++i) {
    if (lhs.dim(d.lhs_batch[i]) != rhs.dim(d.rhs_batch[i]))
      return DotError(inst, "batch dims " + std::to_string(d.lhs_batch[i]) + " of " + lhs.ToString() + " and " +
                                std::to_string(d.rhs_batch[i]) + " of " + rhs.ToString() + " differ in size (" + numbers + ")");
    p.batch *= lhs.dim(d.lhs_batch[i]);
  }
  for (size_t i = 0; i < d.lhs_contracting.size(); ++i) {
    if (lhs.dim(d.lhs_contracting[i]) != rhs.dim(d.rhs_contracting[i]))
      return DotError(inst, "contracting dims " + std::to_string(d.lhs_contracting[i]) + " of " + lhs.ToString() + " and " +
                                std::to_string(d.rhs_contracting[i]) + " of " + rhs.ToString() + " differ in size (" + numbers + ")");
    p.k *= lhs.dim(d.lhs_contracting[i]);
  }
  auto free_dims = [](const Shape& x, const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
    std::vector<int64_t> out;
    for (int64_t i = 0; i < x.rank(); ++i)
      if (std::find(a.begin(), a.end(), i) == a.end() && std::find(b.begin(), b.end(), i) == b.end()) out.push_back(i);
    return out;
  };
  p.lhs_free = free_dims(lhs, d.lhs_batch, d.lhs_contracting);
  p.rhs_free = free_dims(rhs, d.rhs_batch, d.rhs_contracting);
  if (inst.opcode == Opcode::kRaggedDot) {  // the rhs's group dim picks a matrix; it is not a free dim
    VKXLA_ASSIGN_OR_RETURN(const std::vector<int64_t> group, IntListAttribute(inst, "rhs_group_dims", false));
    std::erase_if(p.rhs_free, [&](int64_t x) { return std::find(group.begin(), group.end(), x) != group.end(); });
  }
  for (int64_t i : p.lhs_free) p.m *= lhs.dim(i);
  for (int64_t i : p.rhs_free) p.n *= rhs.dim(i);
  VKXLA_RETURN_IF_ERROR(CheckProductOperands(inst, lhs, rhs));
  if (const std::string* a = FindAttribute(inst, "algorithm")) p.algorithm = *ParseDotAlgorithm(*a);
  return p;
}

StatusOr<Shape> InferDotShape(const Instruction& inst) {
  VKXLA_ASSIGN_OR_RETURN(DotPlan p, PlanDot(inst));
  const Shape& lhs = inst.operands[0]->shape;
  const Shape& rhs = inst.operands[1]->shape;
  std::vector<int64_t> dims;
  for (int64_t d : p.dims.lhs_batch) dims.push_back(lhs.dim(d));
  for (int64_t d : p.lhs_free) dims.push_back(lhs.dim(d));
  for (int64_t d : p.rhs_free) dims.push_back(rhs.dim(d));
  // The result's element type is the written one (preferred_element_type);
  // without one, the lhs's.
  const ElementType t = inst.shape.IsArray() ? inst.shape.element_type() : lhs.element_type();
  return Shape(t, dims);
}

bool IsDynamicDot(const Instruction& inst) {
  if (inst.opcode != Opcode::kDot || inst.operands.size() != 2) return false;
  for (const Instruction* o : inst.operands)
    if (!o->shape.IsArray()) return false;
  return !inst.operands[0]->shape.is_static() || !inst.operands[1]->shape.is_static();
}

void MarkDynamicDotResult(const Instruction& inst, Shape& result) {
  StatusOr<DotPlan> p = PlanDot(inst);
  if (!p.ok() || !result.IsArray()) return;
  const Shape& lhs = inst.operands[0]->shape;
  const Shape& rhs = inst.operands[1]->shape;
  int64_t at = 0;
  for (size_t i = 0; i < p->dims.lhs_batch.size(); ++i, ++at)
    if (lhs.is_dynamic_dim(p->dims.lhs_batch[i]) || rhs.is_dynamic_dim(p->dims.rhs_batch[i])) result.set_dynamic_dim(at, true);
  for (int64_t d : p->lhs_free) result.set_dynamic_dim(at++, lhs.is_dynamic_dim(d));
  for (int64_t d : p->rhs_free) result.set_dynamic_dim(at++, rhs.is_dynamic_dim(d));
}

namespace {

// Row-major multi-index of `linear` in `dims`.
std::vector<int64_t> Unravel(int64_t linear, const std::vector<int64_t>& dims) {
  std::vector<int64_t> idx(dims.size());
  for (size_t d = dims.size(); d-- > 0;) {
    idx[d] = dims[d] > 0 ? linear % dims[d] : 0;
    linear = dims[d] > 0 ? linear / dims[d] : 0;
  }
  return idx;
}

}  // namespace

StatusOr<Literal> EvaluateDynamicDot(const Instruction& inst, const Literal& lhs, const Literal& rhs) {
  VKXLA_ASSIGN_OR_RETURN(DotPlan p, PlanDot(inst));
  const Shape& lb = inst.operands[0]->shape;
  const Shape& rb = inst.operands[1]->shape;
  // Each contracting pair's run-time size.
  std::vector<int64_t> sizes;
  for (size_t i = 0; i < p.dims.lhs_contracting.size(); ++i) {
    const int64_t l = p.dims.lhs_contracting[i], r = p.dims.rhs_contracting[i];
    sizes.push_back(lb.is_dynamic_dim(l) ? lhs.shape().dim(l) : rb.is_dynamic_dim(r) ? rhs.shape().dim(r) : lb.dim(l));
  }
  // Both operands at their bounds, zero past their sizes and past each
  // contraction's size: the padding adds nothing.
  auto pad = [&](const Literal& x, const Shape& bound, const std::vector<int64_t>& contracting) {
    Literal out(Shape(bound.element_type(), bound.dims()));
    for (int64_t i = 0; i < out.element_count(); ++i) {
      const std::vector<int64_t> idx = Unravel(i, bound.dims());
      bool inside = true;
      for (int64_t d = 0; d < bound.rank(); ++d) inside = inside && idx[d] < x.shape().dim(d);
      for (size_t c = 0; c < contracting.size(); ++c) inside = inside && idx[contracting[c]] < sizes[c];
      if (inside) out.Set(i, x.GetAt(idx));
    }
    return out;
  };
  const Literal lp = pad(lhs, lb, p.dims.lhs_contracting), rp = pad(rhs, rb, p.dims.rhs_contracting);
  Instruction at_bounds = inst;
  at_bounds.shape = Shape(inst.shape.element_type(), inst.shape.dims());
  VKXLA_ASSIGN_OR_RETURN(Literal full, EvaluateDot(at_bounds, lp, rp));
  // The result at the run-time sizes of the dims it keeps.
  std::vector<int64_t> dims;
  for (size_t i = 0; i < p.dims.lhs_batch.size(); ++i)
    dims.push_back(lb.is_dynamic_dim(p.dims.lhs_batch[i]) ? lhs.shape().dim(p.dims.lhs_batch[i]) : rhs.shape().dim(p.dims.rhs_batch[i]));
  for (int64_t d : p.lhs_free) dims.push_back(lhs.shape().dim(d));
  for (int64_t d : p.rhs_free) dims.push_back(rhs.shape().dim(d));
  Literal out(Shape(inst.shape.element_type(), dims));
  for (int64_t i = 0; i < out.element_count(); ++i) out.Set(i, full.GetAt(Unravel(i, dims)));
  return out;
}

std::vector<int64_t> CanonicalOperandIndex(const Shape& x, const std::vector<int64_t>& batch_dims,
                                           const std::vector<int64_t>& free_dims, const std::vector<int64_t>& contracting,
                                           int64_t b, int64_t f, int64_t k) {
  std::vector<int64_t> idx(x.rank());
  auto spread = [&](const std::vector<int64_t>& dims, int64_t linear) {
    for (size_t i = dims.size(); i-- > 0;) {
      idx[dims[i]] = linear % x.dim(dims[i]);
      linear /= x.dim(dims[i]);
    }
  };
  spread(batch_dims, b);
  spread(free_dims, f);
  spread(contracting, k);
  return idx;
}

StatusOr<Literal> EvaluateDot(const Instruction& inst, const Literal& lhs, const Literal& rhs) {
  VKXLA_ASSIGN_OR_RETURN(DotPlan p, PlanDot(inst));
  const Shape& ls = lhs.shape();
  const Shape& rs = rhs.shape();
  const ElementType t = inst.shape.element_type();
  Literal out(Shape(t, inst.shape.dims()));
  const DotArithmetic arithmetic(t, p.algorithm);
  // Operands as flat arrays in canonical order: A[b][m][k], B[b][k][n].
  std::vector<DotArithmetic::Term> a(static_cast<size_t>(p.batch * p.m * p.k)), bm(static_cast<size_t>(p.batch * p.k * p.n));
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t k = 0; k < p.k; ++k) {
      for (int64_t m = 0; m < p.m; ++m)
        a[(b * p.m + m) * p.k + k] = arithmetic.Of(
            lhs.GetAt(CanonicalOperandIndex(ls, p.dims.lhs_batch, p.lhs_free, p.dims.lhs_contracting, b, m, k)), p.algorithm.lhs_precision);
      for (int64_t n = 0; n < p.n; ++n)
        bm[(b * p.k + k) * p.n + n] = arithmetic.Of(
            rhs.GetAt(CanonicalOperandIndex(rs, p.dims.rhs_batch, p.rhs_free, p.dims.rhs_contracting, b, n, k)), p.algorithm.rhs_precision);
    }
  int64_t linear = 0;
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t m = 0; m < p.m; ++m)
      for (int64_t n = 0; n < p.n; ++n, ++linear) {
        DotArithmetic::Term acc;
        for (int64_t k = 0; k < p.k; ++k) arithmetic.Accumulate(acc, a[(b * p.m + m) * p.k + k], bm[(b * p.k + k) * p.n + n]);
        out.Set(linear, arithmetic.Result(acc));
      }
  return out;
}

}  // namespace vkxla
