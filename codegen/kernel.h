// A generated compute kernel: GLSL source plus how to bind and launch it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/instruction.h"

namespace vkxla {

constexpr int64_t kMaxDynamicRank = 8;

struct KernelSource {
  std::string name;
  std::string glsl;
  // Bindings 0..n-1 read these values (entry parameters or constants, as
  // laid out on the device); binding n is the output.
  std::vector<const Instruction*> inputs;
  // Bounded dynamic shapes: the kernel reads the entry parameters' sizes
  // (binding n, kMaxDynamicRank u32s per parameter) and writes its result's
  // sizes (the binding after the output, one u32 per dim).
  bool reads_parameter_sizes = false;
  bool writes_sizes = false;
  Shape output;               // with its layout
  uint32_t local_size = 64;
  uint64_t invocations = 0;   // total; each owns whole 32-bit output words
};

}  // namespace vkxla
