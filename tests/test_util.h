// What the device tests share: the device they run on, random literals with
// special values mixed in, comparison against the reference with per-op ULP
// tolerances, and the check that validation stayed silent.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "ir/literal.h"
#include "ir/module.h"
#include "ir/opcode.h"
#include "plan/sort_config.h"
#include "runtime/device.h"

namespace vkxla {

Device& TestDevice();
extern const std::vector<ElementType>& kAllTypes;

Scalar RandomScalar(ElementType t, std::mt19937_64& rng, Opcode op);
Literal RandomLiteral(const Shape& shape, std::mt19937_64& rng, Opcode op);
// A random valid layout for `dims`: permuted minor_to_major, up to two tile
// levels, sometimes a '*'.
Layout RandomTiledLayout(const std::vector<int64_t>& dims, std::mt19937_64& rng);
// n random bit patterns of real type t, each read as t reads it: floats over
// every exponent with their NaNs and infinities, integers over their whole
// range. With subnormal_share k > 0, every k-th float keeps only the lowest
// exponent bit, so subnormals and tiny normals come up often.
Literal RandomBitPatterns(ElementType t, int64_t n, std::mt19937_64& rng, int subnormal_share = 0);
// Values whose sums come out the same in any order (atomic and
// compare-and-swap adds land in the device's order): integers anywhere
// (wrapping is exact), f32 random quarters (exact sums), other floats 0 or
// 1 (one non-zero value: every order adds the same sequence, rounding
// included), complex parts likewise.
Literal ExactSumLiteral(const Shape& shape, std::mt19937_64& rng);
// Integer arrays whose values are start indices from `lo` to `hi`.
Literal RandomIndices(const Shape& shape, int64_t lo, int64_t hi, std::mt19937_64& rng);
double UlpDistance(double a, double b, ElementType t);
bool IsTranscendental(Opcode op);
// Tolerated error in ULP of the result type.
double Tolerance(Opcode op, ElementType t);
// Device result against reference result, element by element; `op` picks
// the tolerance. Reports at most five mismatches.
void ExpectClose(const Literal& got, const Literal& want, Opcode op, const std::string& what);
// On a target that flushes f32 subnormals (TargetFeatures::f32_subnormals_kept
// false), the subnormals of f32 and the types computed in f32 replaced by
// zeros of their sign; other types, and other targets, unchanged.
Literal FlushedWhereTheTargetFlushes(const TargetFeatures& target, const Literal& x);
// The reference on the arguments as `target` holds them
// (FlushedWhereTheTargetFlushes); `want` itself where nothing is flushed.
StatusOr<Literal> EvaluateOnFlushedArguments(const TargetFeatures& target, const Module& m, const std::vector<Literal>& args,
                                             const Literal& want);
// ExpectClose for a target that may flush f32 subnormals: a result also
// passes as the reference on the flushed inputs (want_flushed), or as
// either reference with subnormal results taken as zeros.
void ExpectCloseOnTarget(const TargetFeatures& target, const Literal& got, const Literal& want, const Literal& want_flushed,
                         Opcode op, const std::string& what);
// HLO text compiled for `target` on the test device and run on `args`,
// each result leaf against the reference evaluator within op's tolerance.
void ExpectHloMatchesReferenceOn(const TargetFeatures& target, const std::string& hlo, const std::vector<Literal>& args, Opcode op,
                                 const std::string& what);
void ExpectNoValidationMessages();
// Runs `module` on the device and on the reference evaluator with random
// arguments, expects equal results (and `expected_kernels` kernels unless
// -1); returns the device result.
Literal RunAndCompare(const Module& module, uint64_t seed, int expected_kernels = -1);
// Parses and verifies HLO text; a failure is a test failure (and null).
std::unique_ptr<Module> ParseOrFail(const std::string& text);
// Compiles `module` for the test device and runs it once.
StatusOr<Literal> CompileAndRun(const Module& module, const std::vector<Literal>& args);
// Parses "HloModule m", `computations` and an ENTRY with `entry_body`, runs
// it without arguments and returns the values as text (or the error).
std::string RunHloText(const std::string& computations, const std::string& entry_body);
// Reads StableHLO `text` with `args` (their shapes refine the entry), runs
// it on the device, checks it against the reference evaluator, and returns
// the result's shape and values as text (or the error).
std::string RunRefined(const std::string& text, const std::vector<Literal>& args);
// Expects that module to be rejected with a message containing every word.
void ExpectHloError(const std::string& computations, const std::string& entry_body, const std::vector<std::string>& words);

// The test device's features, then as a GPU would plan (kernels shaped for
// a GPU: radix tiles of 256 lanes, sort blocks in shared memory) and as a
// phone (16 KiB of shared memory): all three run on the test device.
std::vector<TargetFeatures> KernelShapeTargets();
// The configurations of the sorts `module`'s plan for `target` holds (a
// plan failure is a test failure).
std::vector<SortConfig> SortConfigsOf(const Module& module, const TargetFeatures& target);

// The same with given arguments; `target`, where given, is what the plan
// is made for (a GPU's configurations run on lavapipe too).
Literal RunAndCompareWith(const Module& module, const std::vector<Literal>& args, int expected_kernels = -1,
                          const TargetFeatures* target = nullptr);

}  // namespace vkxla
