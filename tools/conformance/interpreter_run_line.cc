#include "tools/conformance/interpreter_run_line.h"

#include <sstream>

#include "frontends/mlir_cursor.h"
#include "frontends/mlir_types.h"

namespace vkxla {

std::string RunLineArguments(const std::string& file_text) {
  std::istringstream in(file_text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("// RUN:", 0) != 0 || line.find("--interpret") == std::string::npos || line.find(" not ") != std::string::npos)
      continue;
    const size_t at = line.find("--args=\"");
    if (at == std::string::npos) continue;
    const size_t begin = at + 8, end = line.find('"', begin);
    return end == std::string::npos ? "" : line.substr(begin, end - begin);
  }
  return "";
}

StatusOr<std::vector<Literal>> ParseRunArguments(const std::string& args) {
  MlirCursor c(args);
  VKXLA_RETURN_IF_ERROR(c.Expect("["));
  std::vector<Literal> out;
  if (c.Consume("]")) return out;
  do {
    VKXLA_ASSIGN_OR_RETURN(DenseText dense, ParseDenseText(c));
    VKXLA_RETURN_IF_ERROR(c.Expect(":"));
    VKXLA_ASSIGN_OR_RETURN(Shape shape, ParseMlirType(c));
    VKXLA_ASSIGN_OR_RETURN(Literal value, DenseToLiteral(c, dense, shape));
    out.push_back(std::move(value));
  } while (c.Consume(","));
  VKXLA_RETURN_IF_ERROR(c.Expect("]"));
  return out;
}

StatusOr<std::vector<Literal>> ParsePrintedResults(const std::vector<std::string>& check_lines) {
  std::string text;
  for (const std::string& l : check_lines) text += l + "\n";
  std::vector<Literal> out;
  size_t at = 0;
  // Each result prints as "<type> {" then its values then "}".
  while ((at = text.find("tensor<", at)) != std::string::npos) {
    MlirCursor c(std::string_view(text).substr(at));
    VKXLA_ASSIGN_OR_RETURN(Shape shape, ParseMlirType(c));
    VKXLA_RETURN_IF_ERROR(c.Expect("{"));
    const size_t open = at + c.position(), close = text.find('}', open);
    if (close == std::string::npos) return InvalidArgument("CHECK lines: no '}' after the values of " + shape.ToString());
    const std::string dense = "dense<" + text.substr(open, close - open) + ">";
    MlirCursor values(dense);
    VKXLA_ASSIGN_OR_RETURN(DenseText d, ParseDenseText(values));
    VKXLA_ASSIGN_OR_RETURN(Literal value, DenseToLiteral(values, d, shape));
    out.push_back(std::move(value));
    at = close + 1;
  }
  return out;
}

}  // namespace vkxla
