#include "tools/cli_flags.h"

#include <cstdio>

#include "vkxla/vkxla.h"

namespace vkxla {

CLI::App* AddCommand(CLI::App& app, const std::string& name, const std::string& description) {
  CLI::App* command = app.add_subcommand(name, description);
  command->set_version_flag("--version", std::string("vkxla ") + std::string(Version()));
  return command;
}

CLI::Option* AddDeviceOption(CLI::App& command, int& device) {
  return command.add_option("--device", device, "device index from `vkxla devices` (default: $VKXLA_DEVICE, else 0)")
      ->check(CLI::Range(0, 1 << 20));
}

int ReportError(const std::string& command, const Status& status) {
  std::fprintf(stderr, "vkxla: error: %s: %s\n", command.c_str(), status.message().c_str());
  return kExitError;
}

}  // namespace vkxla
