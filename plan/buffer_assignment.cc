#include "plan/buffer_assignment.h"

#include <algorithm>

namespace vkxla {
namespace {

uint64_t AlignUp(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }

bool LivesOverlap(const BufferDecl& a, const BufferDecl& b) {
  return a.first_step <= b.last_step && b.first_step <= a.last_step;
}

// Buffers that a kernel binds must fit one binding.
bool IsBound(BufferKind k) { return k != BufferKind::kStaging; }

}  // namespace

Status AssignBuffers(Program& program) {
  const uint64_t align = std::max<uint64_t>(16, program.target.min_storage_buffer_offset_alignment);
  program.arenas.clear();
  for (const MemoryKind memory : {MemoryKind::kDevice, MemoryKind::kHost}) {
    std::vector<int> ids;
    for (size_t i = 0; i < program.buffers.size(); ++i)
      if (program.buffers[i].memory == memory) ids.push_back(static_cast<int>(i));
    if (ids.empty()) continue;
    const int arena = static_cast<int>(program.arenas.size());
    program.arenas.push_back({memory, 0});
    std::stable_sort(ids.begin(), ids.end(), [&](int a, int b) {
      const BufferDecl &x = program.buffers[a], &y = program.buffers[b];
      if (x.bytes != y.bytes) return x.bytes > y.bytes;
      return x.first_step < y.first_step;
    });
    std::vector<int> placed;
    for (int id : ids) {
      BufferDecl& b = program.buffers[id];
      b.addressed = IsBound(b.kind) && b.bytes > program.target.max_storage_buffer_range;
      if (b.addressed && !program.target.buffer_device_address)
        return ResourceExhausted(b.name + " " + b.shape.ToString() + ": array of " + std::to_string(b.bytes) +
                                 " bytes exceeds maxStorageBufferRange (" +
                                 std::to_string(program.target.max_storage_buffer_range) + ") of " +
                                 program.target.device_name + ", which lacks bufferDeviceAddress to reach it otherwise");
      // Kernels index bytes, elements and words with 32-bit integers.
      if (b.addressed && (b.bytes > kMaxAddressedBytes || (b.shape.IsArray() && b.shape.element_count() >= (int64_t{1} << 32))))
        return ResourceExhausted(b.name + " " + b.shape.ToString() + ": array of " + std::to_string(b.bytes) +
                                 " bytes is past the 4 GiB that kernels' 32-bit indices reach");
      // The ranges taken while this buffer lives, in offset order.
      std::vector<std::pair<uint64_t, uint64_t>> taken;
      for (int other : placed) {
        const BufferDecl& o = program.buffers[other];
        if (LivesOverlap(b, o)) taken.emplace_back(o.offset, o.offset + o.bytes);
      }
      std::sort(taken.begin(), taken.end());
      uint64_t offset = 0;
      for (const auto& [start, end] : taken) {
        if (offset + b.bytes <= start) break;
        offset = std::max(offset, AlignUp(end, align));
      }
      b.arena = arena;
      b.offset = offset;
      program.arenas[arena].bytes = std::max(program.arenas[arena].bytes, offset + b.bytes);
      placed.push_back(id);
    }
    if (program.arenas[arena].bytes > program.target.max_memory_allocation_size)
      return ResourceExhausted(std::string(memory == MemoryKind::kDevice ? "device" : "host") + " memory of " +
                               std::to_string(program.arenas[arena].bytes) + " bytes exceeds maxMemoryAllocationSize (" +
                               std::to_string(program.target.max_memory_allocation_size) + ") of " +
                               program.target.device_name);
  }
  return OkStatus();
}

}  // namespace vkxla
