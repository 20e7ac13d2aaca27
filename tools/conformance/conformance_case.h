// One conformance case: a `// -----` piece of a StableHLO interpreter test
// file, run on a device and judged by its check ops.
#pragma once

#include <string>
#include <vector>

#include "runtime/device.h"

namespace vkxla {

struct ConformanceCase {
  std::string file;    // "add.mlir"
  std::string family;  // "add": the op family, for the report
  std::string name;    // the case: its entry function, "#n" added where a file repeats it
  std::string function;  // the entry function: "add_op_test_si4"
  std::string text;    // the whole piece (the entry's callees with it)
  int first_line = 1;
  // For an entry that takes arguments: the file's RUN line arguments and
  // the piece's CHECK lines (what the interpreter must print).
  std::string run_arguments;
  std::vector<std::string> printed;
  std::string id() const { return file + ":" + name; }
};

enum class Outcome { kPassed, kFailed, kSkipped };

struct CaseResult {
  Outcome outcome = Outcome::kSkipped;
  // Why it failed or was skipped; for a failed check, the first mismatching
  // element with both values and their ULP distance.
  std::string detail;
  // The largest ULP distance of the float values a passed case compared
  // (0 when exact or when nothing compared was a float).
  double max_ulp = 0;
};

// Splits a test file at its `// -----` lines; within a piece, every
// function that is not private and holds check ops is a case of its own
// (a piece without any is one case, its entry the reader's default).
std::vector<ConformanceCase> SplitCases(const std::string& path, const std::string& text);

// Reads, compiles and runs the case on `device` and evaluates its checks.
// Anything the project does not implement is kSkipped with the reason.
CaseResult RunCase(const ConformanceCase& c, Device& device);

}  // namespace vkxla
