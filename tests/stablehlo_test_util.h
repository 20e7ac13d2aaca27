// Helpers for tests written in StableHLO: a piece whose check ops must
// pass, and one CHLO/StableHLO unary op run over given values.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "frontends/stablehlo_reader.h"
#include "runtime/executable.h"
#include "tests/test_util.h"
#include "tools/conformance/conformance_case.h"

namespace vkxla {

// Runs `text` (one function holding check.* ops) as a conformance case on
// the test device; every check must hold.
inline void ExpectChecksPass(const std::string& text) {
  std::vector<ConformanceCase> cases = SplitCases("x.mlir", text);
  ASSERT_EQ(cases.size(), 1u);
  CaseResult r = RunCase(cases[0], TestDevice());
  EXPECT_EQ(r.outcome, Outcome::kPassed) << r.detail;
}

// `text` read and run on the test device, checked against the reference
// evaluator: its values as text, or the error.
inline std::string ReadAndRun(const std::string& text, const std::vector<Literal>& args) {
  auto p = ReadStablehlo(text, /*with_checks=*/false);
  if (!p.ok()) return p.status().ToString();
  return RunAndCompareWith(*p->module, args).ValuesToString();
}

// An element type and a tensor type as StableHLO writes them (f32, complex<f32>, tensor<3x4xf32>).
inline std::string MlirElementType(ElementType t) {
  if (t == ElementType::kC64) return "complex<f32>";
  if (t == ElementType::kC128) return "complex<f64>";
  return std::string(ElementTypeName(t));
}
inline std::string MlirTensorType(const Shape& s) {
  std::string t = "tensor<";
  for (int64_t d : s.dims()) t += std::to_string(d) + "x";
  return t + MlirElementType(s.element_type()) + ">";
}

// Integer values as Literal::ValuesToString writes them.
inline std::string Values(const std::vector<double>& v) {
  std::string s = "{";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(static_cast<long long>(v[i]));
  return s + "}";
}

// Rows of `columns` integer values, as Literal::ValuesToString writes a matrix.
inline std::string Rows(const std::vector<double>& v, size_t columns) {
  std::string s = "{";
  for (size_t r = 0; r * columns < v.size(); ++r)
    s += (r ? ", " : "") + Values(std::vector<double>(v.begin() + static_cast<long>(r * columns), v.begin() + static_cast<long>((r + 1) * columns)));
  return s + "}";
}

inline Literal F32Values(const std::vector<int64_t>& dims, const std::vector<double>& v) {
  Literal l(Shape(ElementType::kF32, dims));
  for (size_t i = 0; i < v.size(); ++i) l.Set(static_cast<int64_t>(i), Scalar::Float(ElementType::kF32, v[i]));
  return l;
}

// f32 and f64 (in software where the device lacks shaderFloat64).
inline std::vector<ElementType> TestedFloatTypes() { return {ElementType::kF32, ElementType::kF64}; }

// `op %x : tensor<Nxt> -> tensor<Nxt>` over `xs` rounded to `t`: the
// inputs as rounded and the device's results (nothing on a failure,
// which is reported).
struct UnaryRun {
  Literal input, output;
};
inline std::optional<UnaryRun> RunUnary(const std::string& op, ElementType t, const std::vector<double>& xs) {
  const std::string type = "tensor<" + std::to_string(xs.size()) + "x" + std::string(ElementTypeName(t)) + ">";
  auto program = ReadStablehlo("func.func @main(%x: " + type + ") -> " + type + " {\n  %r = " + op + " %x : " + type + " -> " +
                                   type + "\n  func.return %r : " + type + "\n}\n",
                               false);
  if (!program.ok()) {
    ADD_FAILURE() << op << ": " << program.status().ToString();
    return std::nullopt;
  }
  UnaryRun run{Literal(Shape(t, {static_cast<int64_t>(xs.size())})), Literal()};
  for (size_t i = 0; i < xs.size(); ++i) run.input.Set(static_cast<int64_t>(i), Scalar::Float(t, xs[i]));
  auto exe = Executable::Compile(*program->module, TestDevice());
  if (!exe.ok()) {
    ADD_FAILURE() << op << ": " << exe.status().ToString();
    return std::nullopt;
  }
  auto got = (*exe)->Run({run.input});
  if (!got.ok()) {
    ADD_FAILURE() << op << ": " << got.status().ToString();
    return std::nullopt;
  }
  run.output = std::move(*got);
  return run;
}

}  // namespace vkxla
