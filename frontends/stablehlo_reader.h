// StableHLO MLIR text (what jax.jit(f).lower(...).as_text() writes, and the
// StableHLO interpreter's test files) read into the same ir::Module the HLO
// text parser makes: func.func with its arguments as parameters, func.call
// inlined, the pretty and the generic ("stablehlo.x"(...) {...} : ...) forms
// of the ops the project implements. `check.*` ops are collected, not run.
// An op the project lacks is an Unimplemented error naming it, with line:col.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/module.h"
#include "ops/collectives.h"
#include "vkxla/status.h"

namespace vkxla {

struct StablehloCheck {
  // kReference: the value an interpreter.probe recorded, which is the
  // reference evaluator's value of the same leaf (within max_ulp_difference).
  enum class Kind { kEq, kAlmostEq, kClose, kReference };
  Kind kind = Kind::kEq;
  std::string op;                    // "check.expect_eq_const", for reports
  std::string location;              // line:col
  int actual = -1;                   // result-tuple leaf the check reads
  int expected_value = -1;           // leaf compared against, or -1
  std::optional<Literal> expected;   // the constant, for *_const forms
  double tolerance = 1e-4;           // expect_almost_eq
  int64_t max_ulp_difference = 3;    // expect_close
};

struct StablehloProgram {
  std::unique_ptr<Module> module;
  std::string function;              // the entry function's name
  int results = 0;                   // leading root leaves that func.return gives
  std::vector<StablehloCheck> checks;
  // What `interpreter.run_parallel`'s infeed=[@f, ...] puts in the infeed
  // queue before the program runs: each function's value, in order.
  std::vector<Literal> infeed;
  // interpreter.run_parallel of several programs: process p (flat id
  // replica * partitions + partition) runs processes[p], the entry's
  // statements up to the run_parallel and then its program (no arguments;
  // its root the tuple of the program's array results), and `module` takes
  // all processes' array results, in process order, as its trailing
  // parameters.
  std::vector<std::unique_ptr<Module>> processes;
  ProcessGrid grid;
};

// Reads `text` (one module or one `// -----` case). With `with_checks`, the
// entry's root is a tuple of the returned values followed by every value a
// check reads; otherwise the returned value (or a tuple of them). The
// entry is the function named `entry` (without '@'), else @main, else the
// first one.
// A shape-polymorphic entry (arguments with open dimensions, `tensor<?x4xf32>`,
// as jax.export writes) is read with its arguments' `argument_shapes`:
// every open dimension is then refined from them (as StableHLO's
// refine-shapes pass does), shape arithmetic folds to constants and
// jax.export's shape assertions are checked; without them it is a
// FailedPrecondition error that says so.
StatusOr<StablehloProgram> ReadStablehlo(std::string_view text, bool with_checks, int first_line = 1,
                                         std::string_view entry = {}, const std::vector<Shape>* argument_shapes = nullptr);
// The entry's argument types as written, with kUnknownDim (frontends/mlir_types.h)
// where a polymorphic export leaves a dimension open.
StatusOr<std::vector<Shape>> StablehloEntryArgumentTypes(std::string_view text, std::string_view entry = {});

// The functions of `text`, in order: what a test runner picks entries from.
struct StablehloFunctionInfo {
  std::string name;  // without '@'
  size_t arguments = 0;
  bool is_private = false;
  bool holds_checks = false;
};
StatusOr<std::vector<StablehloFunctionInfo>> ListStablehloFunctions(std::string_view text, int first_line = 1);
// A file's module; the entry as ReadStablehlo picks it. Errors start "path:line:col".
StatusOr<StablehloProgram> LoadStablehloFile(const std::string& path, std::string_view entry = {},
                                             const std::vector<Shape>* argument_shapes = nullptr);

}  // namespace vkxla
