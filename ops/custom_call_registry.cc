#include "ops/custom_call_registry.h"

#include <map>
#include <mutex>

namespace vkxla {
namespace {

struct Registry {
  std::mutex mu;
  std::map<std::string, HostCustomCall> host;
  std::map<std::string, GlslCustomCall> glsl;
};

Registry& Get() {
  static Registry* r = new Registry;  // never destroyed: callbacks may run during static teardown
  return *r;
}

}  // namespace

Status RegisterHostCustomCall(const std::string& target, HostCustomCall function) {
  if (target.empty()) return InvalidArgument("a custom-call target needs a name");
  if (!function) return InvalidArgument("custom-call target \"" + target + "\": no function given");
  Registry& r = Get();
  std::lock_guard<std::mutex> lock(r.mu);
  if (r.glsl.count(target) || !r.host.emplace(target, std::move(function)).second)
    return FailedPrecondition("custom-call target \"" + target + "\" is already registered");
  return OkStatus();
}

Status RegisterGlslCustomCall(const std::string& target, GlslCustomCall call) {
  if (target.empty()) return InvalidArgument("a custom-call target needs a name");
  if (call.function.empty() || call.source.find(call.function) == std::string::npos)
    return InvalidArgument("custom-call target \"" + target + "\": the GLSL source must define the function it names");
  Registry& r = Get();
  std::lock_guard<std::mutex> lock(r.mu);
  if (r.host.count(target) || !r.glsl.emplace(target, std::move(call)).second)
    return FailedPrecondition("custom-call target \"" + target + "\" is already registered");
  return OkStatus();
}

std::optional<GlslCustomCall> FindGlslCustomCall(const std::string& target) {
  Registry& r = Get();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.glsl.find(target);
  if (it == r.glsl.end()) return std::nullopt;
  return it->second;
}

std::optional<HostCustomCall> FindHostCustomCall(const std::string& target) {
  Registry& r = Get();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.host.find(target);
  if (it == r.host.end()) return std::nullopt;
  return it->second;
}

}  // namespace vkxla
