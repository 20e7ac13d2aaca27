#include "runtime/loop_gate.h"

#include <cstring>

namespace vkxla {

namespace {

constexpr uint32_t kGateLocalSize = 64;

constexpr char kGateGlsl[] = R"(#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Predicate { uint predicate[]; };
layout(std430, binding = 1) buffer Control { uint control[]; };
layout(push_constant) uniform Push { uint parity; uint words; uint trip; } pc;
void main() {
  uint i = gl_GlobalInvocationID.x;
  bool alive = control[pc.parity] != 0u;
  bool go = alive && (predicate[0] & 0xffu) != 0u;
  if (i == 0u) {
    control[1u - pc.parity] = go ? 1u : 0u;
    if (alive && !go) control[2u] = pc.trip;  // the trips this submission ran
  }
  if (i < pc.words) control[3u + pc.words + i] = go ? control[3u + i] : 0u;
}
)";

// Invocations past the first dimension's groups fold into y, as every
// kernel's grid does (BoundKernel).
constexpr char kCopyGlsl[] = R"(#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Src { uint src[]; };
layout(std430, binding = 1) writeonly buffer Dst { uint dst[]; };
layout(push_constant) uniform Push { uint words; } pc;
void main() {
  uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;
  if (i < pc.words) dst[i] = src[i];
}
)";

uint64_t Words(uint64_t bytes) { return (bytes + 3) / 4; }

BufferSlice WholeWords(BufferSlice s) {
  s.size = Words(s.size) * 4;
  return s;
}

}  // namespace

StatusOr<LoopGatePipelines> LoopGatePipelines::Create(Device& device) {
  LoopGatePipelines p;
  VKXLA_ASSIGN_OR_RETURN(p.gate, ComputePipeline::FromGlsl(device, kGateGlsl, 2));
  VKXLA_ASSIGN_OR_RETURN(p.copy, ComputePipeline::FromGlsl(device, kCopyGlsl, 2));
  return p;
}

StatusOr<std::unique_ptr<LoopGate>> LoopGate::Create(Device& device, const LoopGatePipelines& pipelines,
                                                    BufferSlice predicate, const std::vector<std::array<uint32_t, 2>>& grids) {
  auto gate = std::unique_ptr<LoopGate>(new LoopGate());
  gate->commands_ = grids.size();
  const uint64_t words = 3 + 6 * grids.size();
  VKXLA_ASSIGN_OR_RETURN(gate->control_, device.CreateBuffer(words * 4, Device::Memory::kHostVisible));
  auto* control = static_cast<uint32_t*>(gate->control_.mapped());
  std::memset(control, 0, words * 4);
  for (size_t c = 0; c < grids.size(); ++c) {
    control[3 + 3 * c] = grids[c][0];
    control[3 + 3 * c + 1] = grids[c][1];
    control[3 + 3 * c + 2] = 1;
  }
  VKXLA_ASSIGN_OR_RETURN(BoundKernel k, BoundKernel::Create(device, pipelines.gate, {WholeWords(predicate), Whole(gate->control_)},
                                                      std::max<uint64_t>(1, 3 * grids.size()), kGateLocalSize));
  gate->gate_ = std::make_unique<BoundKernel>(std::move(k));
  return gate;
}

StatusOr<BoundKernel> LoopGate::CopyKernel(Device& device, const LoopGatePipelines& pipelines, BufferSlice src,
                                           BufferSlice dst, uint64_t bytes) {
  src.size = dst.size = bytes;
  return BoundKernel::Create(device, pipelines.copy, {WholeWords(src), WholeWords(dst)}, Words(bytes), 64);
}

std::vector<uint32_t> LoopGate::CopyPushConstants(uint64_t bytes) { return {static_cast<uint32_t>(Words(bytes))}; }

void LoopGate::RecordGate(Scheduler& s, int64_t trip) const {
  gate_->Record(s, {static_cast<uint32_t>(trip % 2), static_cast<uint32_t>(3 * commands_), static_cast<uint32_t>(trip)});
}

void LoopGate::Arm() { static_cast<uint32_t*>(control_.mapped())[0] = 1; }

bool LoopGate::Alive(int64_t trips) const { return static_cast<const uint32_t*>(control_.mapped())[trips % 2] != 0; }

int64_t LoopGate::LastTrips() const { return static_cast<const uint32_t*>(control_.mapped())[2]; }

}  // namespace vkxla
