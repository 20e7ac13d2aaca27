#include "frontends/stablehlo_legacy_ops.h"

#include <algorithm>
#include <set>

#include "frontends/stablehlo_syntax.h"
#include "ops/attributes.h"
#include "ops/gather_scatter_plan.h"

namespace vkxla {

namespace {

std::optional<std::string> Attribute(const std::map<std::string, std::string>& attributes,
                                     std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (auto it = attributes.find(n); it != attributes.end()) return it->second;
  return std::nullopt;
}

// "ab,bc->ac" (quotes and spaces dropped) split into its operands' labels
// and the output's.
StatusOr<std::pair<std::vector<std::string>, std::string>> ParseEinsumConfig(std::string raw, size_t operands) {
  std::string text;
  for (char c : raw)
    if (c != '"' && c != ' ') text += c;
  const size_t arrow = text.find("->");
  if (arrow == std::string::npos) return InvalidArgument("einsum config '" + raw + "' has no '->'");
  std::vector<std::string> inputs;
  std::string part;
  for (char c : text.substr(0, arrow)) {
    if (c == ',') {
      inputs.push_back(part);
      part.clear();
    } else {
      part += c;
    }
  }
  inputs.push_back(part);
  if (inputs.size() != operands)
    return InvalidArgument("einsum config '" + raw + "' names " + std::to_string(inputs.size()) + " operands, the op has " +
                           std::to_string(operands));
  std::vector<std::string> all = inputs;
  all.push_back(text.substr(arrow + 2));
  for (const std::string& labels : all) {
    std::set<char> seen;
    for (char c : labels) {
      if (!std::isalpha(static_cast<unsigned char>(c))) return InvalidArgument("einsum config '" + raw + "': '" + c + "' is not a label");
      if (!seen.insert(c).second)
        return Unimplemented("einsum config '" + raw + "' repeats label '" + std::string(1, c) + "' (a diagonal)");
    }
  }
  return std::make_pair(inputs, all.back());
}

std::vector<int64_t> Positions(const std::string& labels, const std::string& of) {
  std::vector<int64_t> out;
  for (char c : of) out.push_back(static_cast<int64_t>(labels.find(c)));
  return out;
}

Instruction* Dot(Instruction* lhs, Instruction* rhs, const std::vector<int64_t>& dims, ElementType type,
                 const std::vector<int64_t>& lb, const std::vector<int64_t>& rb, const std::vector<int64_t>& lc,
                 const std::vector<int64_t>& rc, const HloMaker& make) {
  Instruction* d = make(Opcode::kDot, Shape(type, dims), {lhs, rhs});
  SetAttribute(*d, "lhs_batch_dims", IntListText(lb));
  SetAttribute(*d, "rhs_batch_dims", IntListText(rb));
  SetAttribute(*d, "lhs_contracting_dims", IntListText(lc));
  SetAttribute(*d, "rhs_contracting_dims", IntListText(rc));
  return d;
}

// x summed over the labels `keep` lacks, as a product with ones (no
// reduction computation needed); returns the kept labels in x's order.
Instruction* SumAway(Instruction* x, std::string& labels, const std::string& keep, ElementType type, const HloMaker& make,
                     const ConstantMaker& constant) {
  std::string kept, summed;
  std::vector<int64_t> summed_dims, ones_dims, kept_dims, contract;
  for (size_t i = 0; i < labels.size(); ++i) {
    if (keep.find(labels[i]) != std::string::npos) {
      kept += labels[i];
      kept_dims.push_back(x->shape.dim(static_cast<int64_t>(i)));
    } else {
      contract.push_back(static_cast<int64_t>(i));
      ones_dims.push_back(x->shape.dim(static_cast<int64_t>(i)));
    }
  }
  if (contract.empty()) return x;
  const ElementType t = x->shape.element_type();
  Instruction* one = constant(Literal::ScalarOf(IsFloat(t) || IsComplex(t) ? Scalar::Float(t, 1) : Scalar::Int(t, 1)));
  Instruction* ones = make(Opcode::kBroadcast, Shape(t, ones_dims), {one});
  ones->dimensions = std::vector<int64_t>{};
  std::vector<int64_t> ones_contract;
  for (size_t i = 0; i < ones_dims.size(); ++i) ones_contract.push_back(static_cast<int64_t>(i));
  labels = kept;
  return Dot(x, ones, kept_dims, type, {}, {}, contract, ones_contract, make);
}

StatusOr<Instruction*> Einsum(const std::vector<Instruction*>& operands, const Shape& result, const std::string& config,
                              const HloMaker& make, const ConstantMaker& constant) {
  VKXLA_ASSIGN_OR_RETURN(auto parsed, ParseEinsumConfig(config, operands.size()));
  auto [inputs, out] = parsed;
  for (size_t k = 0; k < operands.size(); ++k)
    if (static_cast<int64_t>(inputs[k].size()) != operands[k]->shape.rank())
      return InvalidArgument("einsum config '" + config + "' gives operand " + std::to_string(k) + " " +
                             std::to_string(inputs[k].size()) + " labels for " + operands[k]->shape.ToString());
  const ElementType type = result.element_type();
  std::vector<Instruction*> xs = operands;
  // Labels only one operand has and the output lacks are summed first.
  for (size_t k = 0; k < xs.size(); ++k) {
    std::string keep = out;
    for (size_t j = 0; j < xs.size(); ++j)
      if (j != k) keep += inputs[j];
    xs[k] = SumAway(xs[k], inputs[k], keep, xs.size() == 1 ? type : xs[k]->shape.element_type(), make, constant);
  }
  std::string labels;  // of the product, before the transpose
  Instruction* product = xs[0];
  if (xs.size() == 1) {
    labels = inputs[0];
  } else {
    const std::string &l = inputs[0], &r = inputs[1];
    std::string batch, contract, lhs_free, rhs_free;
    for (char c : l) {
      if (r.find(c) == std::string::npos) lhs_free += c;
      else if (out.find(c) != std::string::npos) batch += c;
      else contract += c;
    }
    for (char c : r)
      if (l.find(c) == std::string::npos) rhs_free += c;
    labels = batch + lhs_free + rhs_free;
    std::vector<int64_t> dims;
    for (char c : labels) {
      const size_t in_l = l.find(c);
      dims.push_back(in_l != std::string::npos ? xs[0]->shape.dim(static_cast<int64_t>(in_l))
                                               : xs[1]->shape.dim(static_cast<int64_t>(r.find(c))));
    }
    product = Dot(xs[0], xs[1], dims, type, Positions(l, batch), Positions(r, batch), Positions(l, contract),
                  Positions(r, contract), make);
  }
  if (labels.size() != out.size() || !std::is_permutation(labels.begin(), labels.end(), out.begin()))
    return InvalidArgument("einsum config '" + config + "': the output's labels are not the operands' remaining ones");
  if (labels == out) return product;
  Instruction* t = make(Opcode::kTranspose, Shape(type, result.dims()), {product});
  t->dimensions = Positions(labels, out);
  return t;
}

StatusOr<Instruction*> TorchIndexSelect(Instruction* operand, Instruction* index, const Shape& result, int64_t dim,
                                        int64_t batch_dims, const HloMaker& make) {
  const int64_t rank = operand->shape.rank();
  if (dim < 0) dim += rank;
  if (dim < 0 || dim >= rank || batch_dims < 0 || batch_dims > dim || batch_dims > index->shape.rank())
    return InvalidArgument("torch_index_select: dim " + std::to_string(dim) + " and batch_dims " + std::to_string(batch_dims) +
                           " do not fit operand " + operand->shape.ToString() + " and index " + index->shape.ToString());
  // A gather of one index per position of `index` (index_vector_dim past
  // its last dimension).
  GatherDimensions d;
  d.start_index_map = {dim};
  d.collapsed_slice_dims = {dim};
  d.index_vector_dim = index->shape.rank();
  for (int64_t b = 0; b < batch_dims; ++b) {
    d.operand_batching_dims.push_back(b);
    d.start_indices_batching_dims.push_back(b);
  }
  d.slice_sizes = operand->shape.dims();
  d.slice_sizes[dim] = 1;
  for (int64_t b = 0; b < batch_dims; ++b) d.slice_sizes[b] = 1;
  // The result is operand[:dim] (its first batch_dims shared with the
  // index) + index[batch_dims:] + operand[dim + 1:]: the gather's index
  // dimensions fill the places its offset dimensions leave.
  const int64_t index_rank = index->shape.rank();
  for (int64_t o = batch_dims; o < dim; ++o) d.offset_dims.push_back(o);
  for (int64_t o = dim + 1; o < rank; ++o) d.offset_dims.push_back(o - 1 + index_rank - batch_dims);
  Instruction* g = make(Opcode::kGather, result, {operand, index});
  SetGatherDimensions(*g, d);
  return g;
}

}  // namespace

bool IsLegacyStablehloOp(const std::string& op) {
  return op == "broadcast" || op == "einsum" || op == "unary_einsum" || op == "torch_index_select";
}

StatusOr<Instruction*> LowerLegacyOp(const std::string& op, const std::vector<Instruction*>& operands, const Shape& result,
                                     const std::map<std::string, std::string>& attributes, const HloMaker& make,
                                     const ConstantMaker& constant) {
  const size_t arity = op == "einsum" || op == "torch_index_select" ? 2 : 1;
  if (operands.size() != arity || !result.IsArray())
    return InvalidArgument("stablehlo." + op + " takes " + std::to_string(arity) + (arity == 1 ? " operand" : " operands") +
                           " and gives one array");
  for (Instruction* o : operands)
    if (!o->shape.IsArray()) return InvalidArgument("stablehlo." + op + ": operand " + o->shape.ToString() + " is not an array");
  if (op == "broadcast") {
    std::optional<std::string> sizes = Attribute(attributes, {"sizes", "broadcast_sizes"});
    if (!sizes) return InvalidArgument("stablehlo.broadcast needs broadcast_sizes");
    const int64_t n = static_cast<int64_t>(Integers(*sizes).size());
    Instruction* b = make(Opcode::kBroadcast, result, {operands[0]});
    std::vector<int64_t> dims;
    for (int64_t d = 0; d < operands[0]->shape.rank(); ++d) dims.push_back(n + d);
    b->dimensions = dims;
    return b;
  }
  if (op == "einsum" || op == "unary_einsum") {
    std::optional<std::string> config = Attribute(attributes, {"config", "einsum_config"});
    if (!config) return InvalidArgument("stablehlo." + op + " needs einsum_config");
    return Einsum(operands, result, *config, make, constant);
  }
  std::optional<std::string> dim = Attribute(attributes, {"dim"});
  const std::vector<int64_t> d = dim ? Integers(*dim) : std::vector<int64_t>{};
  const std::vector<int64_t> b = Integers(Attribute(attributes, {"batch_dims"}).value_or("0"));
  if (d.size() != 1 || b.size() != 1) return InvalidArgument("stablehlo.torch_index_select needs dim and batch_dims");
  return TorchIndexSelect(operands[0], operands[1], result, d[0], b[0], make);
}

}  // namespace vkxla
