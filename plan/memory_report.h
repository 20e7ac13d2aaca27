// A planned program's memory, known before it runs: what each class of
// buffer (arguments, results, temporaries, constants, staging) takes,
// and the arenas' totals, which are what is allocated (temporaries whose
// live ranges do not meet share bytes, so the classes add up to more).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "plan/program.h"

namespace vkxla {

struct MemoryReport {
  struct Class {
    std::string name;  // "arguments", "results", "temporaries", "constants", "staging"
    uint64_t bytes = 0;
    uint64_t host_bytes = 0;  // the part in host memory (staging; constants on a CPU device)
    int buffers = 0;
  };
  std::vector<Class> classes;
  uint64_t device_peak = 0, host_peak = 0;  // the arenas, as allocated
  std::string ToString() const;
};

MemoryReport ReportMemory(const Program& program);

// ResourceExhausted when the program's peak device memory exceeds `heap_bytes`
// (the device's largest device-local heap; 0: unknown, not checked), naming
// the peak, each class's device bytes and the heap.
Status CheckFitsDeviceMemory(const Program& program, uint64_t heap_bytes, const std::string& device_name);

}  // namespace vkxla
