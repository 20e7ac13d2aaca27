// What every vkxla subcommand shares: how it is added to the CLI11 app
// (with -h/--help and --version), the --device option, the exit-code rule
// and how errors are printed.
//
// Exit codes: 0 ok; 1 an error in the input (module, data files) or at run
// time; 2 a usage error (unknown flag, bad flag value, missing argument).
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "vkxla/status.h"

namespace vkxla {

inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;
inline constexpr int kExitUsage = 2;

// A subcommand with --version; its callback sets `exit_code`.
CLI::App* AddCommand(CLI::App& app, const std::string& name, const std::string& description);
// --device N: an index from `vkxla devices`; -1 (unset) means
// $VKXLA_DEVICE, else 0.
CLI::Option* AddDeviceOption(CLI::App& command, int& device);
// "vkxla: error: COMMAND: MESSAGE" on stderr; returns kExitError.
int ReportError(const std::string& command, const Status& status);

}  // namespace vkxla
