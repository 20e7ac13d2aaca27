// `vkxla devices [--json]`: every Vulkan device with its capability table,
// or as JSON (index, name, type, driver, API version, features).
#pragma once

#include <CLI/CLI.hpp>

namespace vkxla {

void AddDevicesCommand(CLI::App& app, int& exit_code);

}  // namespace vkxla
