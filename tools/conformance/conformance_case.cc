#include "tools/conformance/conformance_case.h"

#include "runtime/replicated_executable.h"

#include <cmath>
#include <filesystem>
#include <mutex>
#include <optional>
#include <regex>
#include <sstream>

#include "frontends/stablehlo_reader.h"
#include "ir/float_formats.h"
#include "ops/evaluator.h"
#include "runtime/executable.h"
#include "tools/conformance/interpreter_run_line.h"

namespace vkxla {
namespace {

// Units in the last place of type t between a and b (0 when both are NaN).
double UlpDistance(double a, double b, ElementType t) {
  if (std::isnan(a) && std::isnan(b)) return 0;
  if (std::isnan(a) || std::isnan(b) || std::isinf(a) || std::isinf(b)) return a == b ? 0 : INFINITY;
  if (a == b) return 0;
  int e;
  std::frexp(std::max(std::fabs(a), std::fabs(b)), &e);
  const int min_exp = 1 - ExponentBias(t);  // the smallest normal exponent
  return std::fabs(a - b) / std::ldexp(1.0, std::max(e - 1, min_exp) - MantissaBits(t));
}

bool SameFloat(double a, double b, uint64_t bits_a, uint64_t bits_b) {
  if (std::isnan(a) && std::isnan(b)) return true;
  return bits_a == bits_b;
}

// Whether `got` matches `want` under the check; on a mismatch, a line
// naming the first differing element. `max_ulp` grows to the largest ULP
// distance of the float elements compared.
std::string Compare(const StablehloCheck& check, const Literal& got, const Literal& want, double& max_ulp) {
  if (!got.shape().Compatible(want.shape()))
    return check.op + " at " + check.location + ": shape " + got.shape().ToString() + " vs expected " + want.shape().ToString();
  const ElementType t = got.shape().element_type();
  for (int64_t i = 0; i < got.element_count(); ++i) {
    const Scalar g = got.Get(i), w = want.Get(i);
    bool ok;
    double ulp = 0;
    if (IsFloat(t) || IsComplex(t)) {
      const ElementType part = IsComplex(t) ? ComplexComponentType(t) : t;
      const double pairs[2][2] = {{g.re, w.re}, {g.im, w.im}};
      ok = true;
      for (int k = 0; k < (IsComplex(t) ? 2 : 1); ++k) {
        const double a = pairs[k][0], b = pairs[k][1];
        ulp = std::max(ulp, UlpDistance(a, b, part));
        if (std::isfinite(ulp)) max_ulp = std::max(max_ulp, ulp);
        switch (check.kind) {
          case StablehloCheck::Kind::kEq:
            ok &= IsComplex(t) ? (a == b || (std::isnan(a) && std::isnan(b))) : SameFloat(a, b, g.Bits(), w.Bits());
            break;
          case StablehloCheck::Kind::kAlmostEq:
            if (std::isnan(a) || std::isnan(b)) ok &= std::isnan(a) && std::isnan(b);
            else if (std::isinf(a) || std::isinf(b)) ok &= a == b;
            else ok &= std::fabs(a - b) <= check.tolerance;
            break;
          case StablehloCheck::Kind::kClose: case StablehloCheck::Kind::kReference:
            ok &= UlpDistance(a, b, part) <= static_cast<double>(check.max_ulp_difference);
            break;
        }
      }
    } else {
      ok = g.Bits() == w.Bits();
    }
    if (!ok) {
      std::ostringstream o;
      o << check.op << " at " << check.location << ": element " << i << " is " << g.ToString() << ", expected "
        << w.ToString();
      if (IsFloat(t) || IsComplex(t)) o << " (" << ulp << " ULP apart)";
      return o.str();
    }
  }
  return "";
}

}  // namespace

std::vector<ConformanceCase> SplitCases(const std::string& path, const std::string& text) {
  std::vector<ConformanceCase> cases;
  const std::string file = std::filesystem::path(path).filename().string();
  std::string family = std::filesystem::path(path).stem().string();
  std::istringstream in(text);
  std::string line, piece;
  int line_number = 0, first = 1;
  static const std::regex kFunc(R"(func\.func\s+(?:public\s+|private\s+)?@([A-Za-z0-9_.$-]+))");
  const std::string run_arguments = RunLineArguments(text);
  std::vector<std::string> printed;
  auto add = [&](const std::string& function, const std::string& entry) {
    ConformanceCase c{file, family, function, entry, piece, first, run_arguments, printed};
    for (const ConformanceCase& other : cases)
      if (other.name == c.name) c.name += "#" + std::to_string(cases.size());
    cases.push_back(std::move(c));
  };
  auto flush = [&] {
    std::smatch m;
    if (!std::regex_search(piece, m, kFunc)) {
      piece.clear();
      return;
    }
    // A piece the reader cannot list still becomes a case: running it
    // reports why.
    size_t added = 0;
    if (auto functions = ListStablehloFunctions(piece, first); functions.ok()) {
      for (const StablehloFunctionInfo& f : *functions)
        if (f.holds_checks && !f.is_private) {
          add(f.name, f.name);
          ++added;
        }
    }
    if (added == 0) add(m[1].str(), "");
    piece.clear();
    printed.clear();
  };
  while (std::getline(in, line)) {
    ++line_number;
    if (line.rfind("// -----", 0) == 0) {
      flush();
      first = line_number + 1;
      continue;
    }
    for (const char* prefix : {"// CHECK:", "// CHECK-NEXT:"})
      if (line.rfind(prefix, 0) == 0) printed.push_back(line.substr(std::string(prefix).size()));
    piece += line + "\n";
  }
  flush();
  return cases;
}

CaseResult RunCase(const ConformanceCase& c, Device& device) {
  auto skipped = [](const Status& s) { return CaseResult{Outcome::kSkipped, s.message()}; };
  auto failed = [](const std::string& why) { return CaseResult{Outcome::kFailed, why}; };
  auto program = ReadStablehlo(c.text, /*with_checks=*/true, c.first_line, c.function);
  if (!program.ok()) {
    if (program.status().code() == StatusCode::kUnimplemented) return skipped(program.status());
    return failed("read: " + program.status().message());
  }
  // A case without check ops passes when it compiles and runs (the
  // interpreter's own meaning of such a test: no error).
  // An entry with arguments takes them from the file's RUN line.
  std::vector<Literal> arguments;
  // run_parallel of several programs: the processes run first, on this
  // device, and their results are the entry's trailing arguments.
  std::vector<Literal> process_results;
  if (!program->processes.empty()) {
    std::vector<const Module*> modules;
    for (const auto& m : program->processes) modules.push_back(m.get());
    auto replicated = ReplicatedExecutable::Compile(modules, {&device}, program->grid);
    if (!replicated.ok()) {
      if (replicated.status().code() == StatusCode::kUnimplemented) return skipped(replicated.status());
      return failed("compile: " + replicated.status().message());
    }
    auto ran = (*replicated)->Run(std::vector<std::vector<Literal>>(modules.size()));
    if (!ran.ok()) return failed("run: " + ran.status().message());
    for (Literal& r : *ran)
      for (Literal& leaf : std::move(r).TakeLeaves()) process_results.push_back(std::move(leaf));
  }
  const size_t own_parameters = program->module->EntryProgramShape().parameters.size() - process_results.size();
  if (own_parameters > 0) {
    if (c.run_arguments.empty())
      return {Outcome::kSkipped, "the entry function takes arguments and the RUN line gives none (--args)"};
    auto parsed = ParseRunArguments(c.run_arguments);
    if (!parsed.ok()) return failed("RUN line --args: " + parsed.status().message());
    arguments = std::move(*parsed);
  }
  for (Literal& r : process_results) arguments.push_back(std::move(r));
  auto exe = Executable::Compile(*program->module, device);
  if (!exe.ok()) {
    if (exe.status().code() == StatusCode::kUnimplemented) return skipped(exe.status());
    return failed("compile: " + exe.status().message());
  }
  // Cases run side by side on one device share its feed queues: those
  // that use them take turns, and leave them empty.
  static std::mutex feeds_mu;
  std::unique_lock<std::mutex> feeds;
  if (c.text.find("infeed") != std::string::npos || c.text.find("outfeed") != std::string::npos)
    feeds = std::unique_lock<std::mutex>(feeds_mu);
  for (const Literal& v : program->infeed) device.infeed().Push(v);
  auto result = (*exe)->Run(arguments);
  if (feeds.owns_lock()) {
    while (device.infeed().Pop()) {
    }
    while (device.outfeed().Pop()) {
    }
  }
  if (!result.ok()) return failed("run: " + result.status().message());
  const std::vector<const Literal*> leaves = result->Leaves();
  double max_ulp = 0;
  // Probed values are checked against the reference evaluator's.
  std::optional<Literal> reference;
  std::vector<const Literal*> reference_leaves;
  for (const StablehloCheck& check : program->checks)
    if (check.kind == StablehloCheck::Kind::kReference && !reference) {
      auto want = EvaluateModule(*program->module, arguments);
      if (!want.ok()) return failed("reference: " + want.status().message());
      reference = std::move(*want);
      reference_leaves = reference->Leaves();
    }
  // What FileCheck expects printed: the returned values, in order.
  if (!c.printed.empty() && own_parameters > 0) {
    auto want = ParsePrintedResults(c.printed);
    if (!want.ok()) return failed("CHECK lines: " + want.status().message());
    if (want->size() > static_cast<size_t>(program->results) || want->empty())
      return failed("CHECK lines print " + std::to_string(want->size()) + " values, the function returns " +
                    std::to_string(program->results));
    StablehloCheck printed;
    printed.op = "CHECK";
    printed.location = "the CHECK lines";
    for (size_t i = 0; i < want->size(); ++i) {
      const std::string mismatch = Compare(printed, *leaves[i], (*want)[i], max_ulp);
      if (!mismatch.empty()) return failed(mismatch);
    }
  }
  for (const StablehloCheck& check : program->checks) {
    const Literal& got = *leaves[check.actual];
    const Literal& want = check.kind == StablehloCheck::Kind::kReference ? *reference_leaves[check.actual]
                          : check.expected                            ? *check.expected
                                                                      : *leaves[check.expected_value];
    const std::string mismatch = Compare(check, got, want, max_ulp);
    if (!mismatch.empty()) return failed(mismatch);
  }
  return {Outcome::kPassed, "", max_ulp};
}

}  // namespace vkxla
