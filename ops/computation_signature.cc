#include "ops/computation_signature.h"

namespace vkxla {
namespace {

std::string SignatureText(const std::vector<Shape>& params, const std::vector<Shape>& results) {
  std::string s = "(";
  for (size_t k = 0; k < params.size(); ++k) s += (k ? ", " : "") + params[k].ToString(false);
  s += ") -> ";
  if (results.size() == 1) return s + results[0].ToString(false);
  return s + Shape::Tuple(results).ToString(false);
}

}  // namespace

StatusOr<const Computation*> CalledComputation(const Instruction& inst, const std::string& key, const std::string& role) {
  for (const auto& [k, c] : inst.called_computations)
    if (k == key) return static_cast<const Computation*>(c);
  return InvalidArgument(std::string(OpcodeName(inst.opcode)) + " " + inst.Describe() + ": needs " + key +
                         "=%computation (" + role + ")");
}

Status CheckSignature(const Instruction& inst, const Computation& c, const std::string& role,
                      const std::vector<Shape>& params, const std::vector<Shape>& results) {
  std::vector<Instruction*> given = c.parameters();
  bool ok = given.size() == params.size();
  for (size_t k = 0; ok && k < params.size(); ++k) ok = given[k]->shape.Compatible(params[k]);
  const Shape& root = c.root()->shape;
  if (results.size() == 1) {
    ok = ok && root.Compatible(results[0]);
  } else {
    ok = ok && root.IsTuple() && root.tuple_shapes().size() == results.size();
    for (size_t k = 0; ok && k < results.size(); ++k) ok = root.tuple_shapes()[k].Compatible(results[k]);
  }
  if (ok) return OkStatus();
  std::vector<Shape> got;
  for (const Instruction* p : given) got.push_back(p->shape);
  std::vector<Shape> got_results = root.IsTuple() ? root.tuple_shapes() : std::vector<Shape>{root};
  return InvalidArgument(std::string(OpcodeName(inst.opcode)) + " " + inst.Describe() + ": " + role + " %" + c.name() +
                         " is " + SignatureText(got, got_results) + "; expected " + SignatureText(params, results));
}

std::vector<Shape> ScalarsOf(const std::vector<const Instruction*>& operands, int times) {
  std::vector<Shape> out;
  for (int t = 0; t < times; ++t)
    for (const Instruction* o : operands) out.push_back(Shape::Scalar(o->shape.element_type()));
  return out;
}

}  // namespace vkxla
