#include "tools/ops_command.h"

#include <iostream>

#include "tools/cli_flags.h"
#include "tools/op_support.h"
#include "tools/text_file.h"

namespace vkxla {

void AddOpsCommand(CLI::App& app, int& exit_code) {
  CLI::App* command = AddCommand(app, "ops", "Print which element types each op takes and runs (no device needed)");
  auto path = std::make_shared<std::string>();
  command->add_option("--markdown", *path, "write the table to this file (docs/ops.md) instead of printing it");
  command->callback([path, &exit_code] {
    const std::string table = OpSupportMarkdown();
    if (path->empty()) {
      std::cout << table;
      exit_code = kExitOk;
      return;
    }
    const Status s = WriteTextFile(*path, table);
    exit_code = s.ok() ? kExitOk : ReportError("ops", s);
  });
}

}  // namespace vkxla
