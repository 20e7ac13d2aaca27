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
  // Bindings 0..n-1 read these values (entry parameters, constants or
  // values computed by an earlier kernel, as laid out on the device); then
  // come the parameter sizes if read, the output, and the result's sizes if
  // written.
  std::vector<const Instruction*> inputs;
  // Bounded dynamic shapes: the kernel reads the entry parameters' run-time
  // sizes (kMaxDynamicRank u32s per parameter) and writes its result's (one
  // u32 per dim).
  bool reads_parameter_sizes = false;
  bool writes_sizes = false;
  Shape output;               // with its layout
  uint32_t local_size = 64;
  uint64_t invocations = 0;   // total; each owns whole 32-bit output words
  // Words the dispatch pushes (at most 4): the step of a multi-pass kernel.
  std::vector<uint32_t> push_constants;
};

}  // namespace vkxla
