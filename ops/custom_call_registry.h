// User functions behind custom-call targets: host functions, run between
// submissions (operands read back, results written to the device), and
// elementwise GLSL functions, fused into the kernels that read them.
// Registration is process-wide; a name is registered once.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ir/literal.h"
#include "vkxla/status.h"

namespace vkxla {

struct CustomCallContext {
  std::string backend_config;  // as written (raw text)
  int api_version = 0;         // api_version=API_VERSION_... (0 when absent)
};

// Fills `results` (one literal per result leaf, of the declared shapes)
// from `operands` (one per operand leaf).
using HostCustomCall = std::function<Status(const std::vector<Literal>& operands, const CustomCallContext& context,
                                            std::vector<Literal>& results)>;

// An elementwise custom call written in GLSL and fused like any
// elementwise op: `source` defines the function `function`, which takes one
// value per operand (each in its element type's compute type: float for
// f32/f16/bf16, int for s32 and narrower signed, uint for unsigned, bool
// for pred) at the same index as the result element and returns the
// result's. Every operand has the result's dims. `reference` computes the
// same on the host, for the reference evaluator (without one, evaluating
// the call on the host is an error).
struct GlslCustomCall {
  std::string function;
  std::string source;
  std::function<Scalar(const std::vector<Scalar>&)> reference;
};

// Errors when `target` is empty or already registered (as either kind).
Status RegisterHostCustomCall(const std::string& target, HostCustomCall function);
Status RegisterGlslCustomCall(const std::string& target, GlslCustomCall call);
// The registered function, or nullopt.
std::optional<HostCustomCall> FindHostCustomCall(const std::string& target);
std::optional<GlslCustomCall> FindGlslCustomCall(const std::string& target);

}  // namespace vkxla
