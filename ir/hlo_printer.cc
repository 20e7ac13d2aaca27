#include "ir/hlo_printer.h"

namespace vkxla {
namespace {

std::string JoinInts(const std::vector<int64_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

void PrintComputation(const Computation& c, bool is_entry, std::string& out) {
  out += is_entry ? "ENTRY %" : "%";
  out += c.name() + " (";
  auto params = c.parameters();
  for (size_t i = 0; i < params.size(); ++i) {
    if (i) out += ", ";
    out += params[i]->name + ": " + params[i]->shape.ToString();
  }
  out += ") -> " + c.root()->shape.ToString() + " {\n";
  for (const auto& inst : c.instructions()) {
    out += "  ";
    if (inst.get() == c.root()) out += "ROOT ";
    out += PrintInstruction(*inst) + "\n";
  }
  out += "}\n";
}

}  // namespace

std::string PrintInstruction(const Instruction& inst) {
  std::string s = "%" + inst.name + " = " + inst.shape.ToString() + " " + std::string(OpcodeName(inst.opcode)) + "(";
  if (inst.opcode == Opcode::kParameter) {
    s += std::to_string(inst.parameter_number);
  } else if (inst.opcode == Opcode::kConstant) {
    s += inst.literal->ValuesToString();
  } else {
    for (size_t i = 0; i < inst.operands.size(); ++i) {
      if (i) s += ", ";
      s += inst.operands[i]->shape.ToString() + " %" + inst.operands[i]->name;
    }
  }
  s += ")";
  if (inst.tuple_index >= 0) s += ", index=" + std::to_string(inst.tuple_index);
  if (inst.iota_dimension >= 0) s += ", iota_dimension=" + std::to_string(inst.iota_dimension);
  if (inst.dimensions) s += ", dimensions={" + JoinInts(*inst.dimensions) + "}";
  if (inst.opcode == Opcode::kCompare) {
    s += ", direction=" + std::string(ComparisonDirectionName(inst.direction));
    if (inst.comparison_type != ComparisonType::kDefault)
      s += ", type=" + std::string(ComparisonTypeName(inst.comparison_type));
  }
  if (inst.exponent_bits >= 0) s += ", exponent_bits=" + std::to_string(inst.exponent_bits);
  if (inst.mantissa_bits >= 0) s += ", mantissa_bits=" + std::to_string(inst.mantissa_bits);
  if (inst.result_accuracy) s += ", result_accuracy=" + inst.result_accuracy->ToString();
  std::string branches;
  for (const auto& [key, comp] : inst.called_computations) {
    if (key == "branch_computations") branches += (branches.empty() ? "" : ", ") + ("%" + comp->name());
    else s += ", " + key + "=%" + comp->name();
  }
  if (!branches.empty()) s += ", branch_computations={" + branches + "}";
  for (const auto& [key, value] : inst.other_attributes) s += ", " + key + "=" + value;
  return s;
}

std::string PrintHloModule(const Module& module) {
  std::string out = "HloModule " + module.name();
  if (module.entry_layout()) out += ", entry_computation_layout={" + module.entry_layout()->ToString() + "}";
  if (module.replica_count() != 1) out += ", replica_count=" + std::to_string(module.replica_count());
  if (module.num_partitions() != 1) out += ", num_partitions=" + std::to_string(module.num_partitions());
  out += "\n";
  for (const auto& c : module.computations()) {
    out += "\n";
    PrintComputation(*c, c.get() == module.entry(), out);
  }
  return out;
}

}  // namespace vkxla
