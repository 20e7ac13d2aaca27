// What an interpreter test file says outside its check ops: the arguments
// its RUN line passes (`--args="[dense<1> : tensor<2xi32>, ...]"`) and the
// values FileCheck expects the interpreter to print (`// CHECK:
// tensor<2xi32> {` / `// CHECK-NEXT: [3, 3]` / `}`), for cases whose
// entry takes arguments.
#pragma once

#include <string>
#include <vector>

#include "ir/literal.h"
#include "vkxla/status.h"

namespace vkxla {

// The value of --args="..." on the file's first RUN line that runs the
// interpreter and is not expected to fail; "" if none.
std::string RunLineArguments(const std::string& file_text);
// The literals of "[dense<...> : type, ...]".
StatusOr<std::vector<Literal>> ParseRunArguments(const std::string& args);
// The results the CHECK lines print, in order (their text after "CHECK:"
// or "CHECK-NEXT:").
StatusOr<std::vector<Literal>> ParsePrintedResults(const std::vector<std::string>& check_lines);

}  // namespace vkxla
