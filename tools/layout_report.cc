#include "tools/layout_report.h"

#include "ir/layout_index.h"
#include "ir/tiled_index.h"

namespace vkxla {
namespace {

StatusOr<std::string> Line(const std::string& what, Shape shape) {
  shape.set_layout(shape.layout_or_default());
  VKXLA_ASSIGN_OR_RETURN(TiledIndexMap map, TiledIndexMap::Create(shape));
  VKXLA_ASSIGN_OR_RETURN(int64_t bytes, PhysicalByteSize(shape));
  std::string dims;
  for (int64_t d : map.physical_dims()) dims += (dims.empty() ? "" : ",") + std::to_string(d);
  const int64_t padding = map.physical_element_count() - shape.element_count();
  return what + ": " + shape.ToString() + " -> physical [" + dims + "] = " +
         std::to_string(map.physical_element_count()) + " elements, " + std::to_string(bytes) + " bytes" +
         (padding ? " (" + std::to_string(padding) + " padding)" : "") + "\n";
}

Status AddLeaves(const Shape& s, int& next, std::string& out) {
  if (s.IsTuple()) {
    for (const Shape& e : s.tuple_shapes()) VKXLA_RETURN_IF_ERROR(AddLeaves(e, next, out));
    return OkStatus();
  }
  VKXLA_ASSIGN_OR_RETURN(std::string line, Line("result " + std::to_string(next++), s));
  out += line;
  return OkStatus();
}

}  // namespace

StatusOr<std::string> LayoutReport(const ProgramShape& program) {
  std::string out;
  for (size_t i = 0; i < program.parameters.size(); ++i) {
    if (!program.parameters[i].IsArray()) continue;
    VKXLA_ASSIGN_OR_RETURN(std::string line, Line("parameter " + std::to_string(i), program.parameters[i]));
    out += line;
  }
  int next = 0;
  VKXLA_RETURN_IF_ERROR(AddLeaves(program.result, next, out));
  return out;
}

}  // namespace vkxla
