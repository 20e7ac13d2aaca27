// Reading a module from a file, for the CLI and the public API alike:
// `.mlir` files are StableHLO (the entry is `function`, else @main, else the
// first), others HLO text. The file's size is checked before it is read.
#pragma once

#include <memory>
#include <string>

#include "ir/module.h"
#include "vkxla/status.h"

namespace vkxla {

// The most a module file may hold (4 GiB, as a literal): checked before
// anything is read.
inline constexpr int64_t kMaxModuleFileBytes = int64_t{1} << 32;

// The whole file; NotFound when it cannot be opened, ResourceExhausted
// when it is larger than kMaxModuleFileBytes.
StatusOr<std::string> ReadModuleText(const std::string& path);

bool IsStablehloPath(const std::string& path);  // ends in .mlir

// `argument_shapes` refine a shape-polymorphic StableHLO entry (frontends/stablehlo_reader.h).
StatusOr<std::unique_ptr<Module>> LoadModuleFile(const std::string& path, const std::string& function, bool stablehlo,
                                                 const std::vector<Shape>* argument_shapes = nullptr);
inline StatusOr<std::unique_ptr<Module>> LoadModuleFile(const std::string& path, const std::string& function = "") {
  return LoadModuleFile(path, function, IsStablehloPath(path));
}
// The entry's argument types where the file is StableHLO whose entry leaves
// dimensions open (kUnknownDim); empty otherwise.
StatusOr<std::vector<Shape>> PolymorphicEntryArguments(const std::string& path, const std::string& function);

}  // namespace vkxla
