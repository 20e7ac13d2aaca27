// The reference evaluator: runs a module on the host, one element at a time,
// with the semantics of ops/elementwise_reference.h. It is the test oracle
// for every Vulkan kernel and is usable for constant folding.
#pragma once

#include <optional>
#include <vector>

#include "ir/literal.h"
#include "ir/module.h"
#include "vkxla/status.h"
#include "ops/control_flow.h"

namespace vkxla {

StatusOr<Literal> EvaluateComputation(const Computation& computation, const std::vector<Literal>& arguments);
StatusOr<Literal> EvaluateModule(const Module& module, const std::vector<Literal>& arguments);
// The same where infeed reads `feeds.infeed` and outfeed appends to `feeds.outfeed`.
StatusOr<Literal> EvaluateModule(const Module& module, const std::vector<Literal>& arguments, EvaluationFeeds& feeds);

// Runs process p of `grid` (flat id replica * partitions + partition) as
// modules[p] on arguments[p], each on its own thread, meeting at their
// collectives; the results in process order.
StatusOr<std::vector<Literal>> EvaluateProcesses(const std::vector<const Module*>& modules,
                                                const std::vector<std::vector<Literal>>& arguments, ProcessGrid grid);
// The processes' results, or the error that started their failure (not a
// process that only failed waiting for it), prefixed with its process.
StatusOr<std::vector<Literal>> GatherProcessResults(std::vector<std::optional<StatusOr<Literal>>> results);

// Whether a value of shape `value` may stand for `declared`: same type and
// rank, static dims equal, dynamic dims at most their bound.
bool FitsShape(const Shape& value, const Shape& declared);

// Checks arguments against a computation's parameters (count, type, dims),
// naming the parameter and both shapes on a mismatch.
Status CheckArguments(const Computation& computation, const std::vector<Literal>& arguments);

// Reinterprets the bytes of `x` as `to` (bitcast-convert's rule).
Literal BitcastConvertLiteral(const Literal& x, const Shape& to);

}  // namespace vkxla
