#include "plan/memory_report.h"

#include <sstream>

namespace vkxla {
namespace {

// The report's class of a buffer kind.
int ClassOf(const BufferDecl& b) {
  switch (b.kind) {
    case BufferKind::kParameter: case BufferKind::kParameterSizes: return 0;
    case BufferKind::kResult: case BufferKind::kResultSizes: return 1;
    case BufferKind::kConstant: return 3;
    case BufferKind::kStaging: return 4;
    default: return 2;  // temporaries and scratch
  }
}

}  // namespace

MemoryReport ReportMemory(const Program& program) {
  MemoryReport r;
  r.classes = {{"arguments"}, {"results"}, {"temporaries"}, {"constants"}, {"staging"}};
  for (const BufferDecl& b : program.buffers) {
    MemoryReport::Class& c = r.classes[ClassOf(b)];
    c.bytes += b.bytes;
    if (b.memory == MemoryKind::kHost) c.host_bytes += b.bytes;
    ++c.buffers;
  }
  r.device_peak = program.PeakBytes(MemoryKind::kDevice);
  r.host_peak = program.PeakBytes(MemoryKind::kHost);
  return r;
}

Status CheckFitsDeviceMemory(const Program& program, uint64_t heap_bytes, const std::string& device_name) {
  const MemoryReport need = ReportMemory(program);
  if (heap_bytes == 0 || need.device_peak <= heap_bytes) return OkStatus();
  std::string classes;
  for (const MemoryReport::Class& c : need.classes)
    if (c.bytes > c.host_bytes) classes += (classes.empty() ? "" : ", ") + c.name + " " + ByteSizeText(c.bytes - c.host_bytes);
  return ResourceExhausted(program.module_name + " needs " + ByteSizeText(need.device_peak) + " of device memory at its peak (" +
                           classes + "), more than " + device_name + "'s largest device-local heap (" + ByteSizeText(heap_bytes) + ")");
}

std::string MemoryReport::ToString() const {
  std::ostringstream o;
  o << "memory before running (bytes of each class's buffers; live-range sharing makes the peak smaller):\n";
  for (const Class& c : classes)
    o << "  " << c.name << ": " << ByteSizeText(c.bytes) << " in " << c.buffers << " buffer" << (c.buffers == 1 ? "" : "s")
      << (c.host_bytes == 0 ? "" : c.host_bytes == c.bytes ? " (host memory)" : " (" + ByteSizeText(c.host_bytes) + " of it in host memory)")
      << "\n";
  o << "  peak device memory: " << ByteSizeText(device_peak) << " (" << device_peak << " bytes)\n";
  o << "  peak host memory: " << ByteSizeText(host_peak) << " (" << host_peak << " bytes)\n";
  return o.str();
}

}  // namespace vkxla
