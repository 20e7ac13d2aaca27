#include "tools/ops_command.h"

#include <fstream>
#include <iostream>

#include "tools/cli_flags.h"
#include "tools/op_support.h"

namespace vkxla {

void AddOpsCommand(CLI::App& app, int& exit_code) {
  CLI::App* command = AddCommand(app, "ops", "Print which element types each op takes and runs (no device needed)");
  auto path = std::make_shared<std::string>();
  command->add_option("--markdown", *path, "write the table to this file (docs/ops.md) instead of printing it");
  command->callback([path, &exit_code] {
    const std::string table = OpSupportMarkdown();
    if (path->empty()) {
      std::cout << table;
    } else {
      std::ofstream out(*path);
      out << table;
      if (!out) {
        exit_code = ReportError("ops", InvalidArgument("cannot write " + *path));
        return;
      }
    }
    exit_code = kExitOk;
  });
}

}  // namespace vkxla
