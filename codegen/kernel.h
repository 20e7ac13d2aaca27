// A generated compute kernel: GLSL source and the buffers it binds. How it
// is launched (invocations, push constants) is the plan's (plan/program.h).
#pragma once

#include <string>
#include <vector>

namespace vkxla {

struct KernelSource {
  std::string name;
  std::string glsl;
  // Binding i is program buffer bindings[i] (a whole slice of its arena).
  std::vector<int> bindings;
};

}  // namespace vkxla
