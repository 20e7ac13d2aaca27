#include "runtime/external_command.h"

#include <map>
#include <mutex>

#include "runtime/vkfft_command.h"

namespace vkxla {
namespace {

struct Registry {
  std::mutex mu;
  std::map<std::string, ExternalCommandFactory> factories;
};

Registry& TheRegistry() {
  static Registry* r = [] {
    auto* registry = new Registry();  // never destroyed: used until exit
    registry->factories["vkfft"] = PrepareVkfftCommand;  // Fft steps (plan/fft_config.h)
    return registry;
  }();
  return *r;
}

}  // namespace

void RegisterExternalCommand(const std::string& name, ExternalCommandFactory factory) {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.factories[name] = std::move(factory);
}

StatusOr<std::unique_ptr<ExternalCommand>> PrepareExternalCommand(Device& device, const std::string& name,
                                                                  const std::string& config) {
  ExternalCommandFactory factory;
  {
    Registry& r = TheRegistry();
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.factories.find(name);
    if (it == r.factories.end()) return Unimplemented("external step " + name + ": no library registered to record it");
    factory = it->second;
  }
  return factory(device, config);
}

}  // namespace vkxla
