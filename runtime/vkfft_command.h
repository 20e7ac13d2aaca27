// The external command "vkfft": a complex-to-complex Fft step
// (plan/fft_config.h) recorded by VkFFT (Debian's libvkfft-dev, patched at
// configure time by cmake/PatchVkFFT.cmake).
//
// VkFFT reads the step's operand (reads[0], never written) and writes its
// result (writes[0]), working in the planned temporary (writes[1]). Each
// is a slice of an arena: VkFFT binds the arena's buffer from offset 0 and
// takes the slice's offset at launch (specifyOffsetsAtLaunch), so a slice
// must end within maxStorageBufferRange (the plan checks it).
//
// Three things 1.2.26 gets wrong that this command works around:
//  - it writes its descriptor sets while planning, before it allocates
//    Bluestein's kernels, so a plan given its buffers at creation binds
//    VK_NULL_HANDLE there (every prime length came back wrong): buffers are
//    given only at launch, which rewrites the sets;
//  - a temporary smaller than it needs is overrun silently (on lavapipe,
//    heap corruption): the size it asks after planning is checked against
//    the planned one;
//  - batched 3-D transforms with Bluestein on the outer dim are wrong: the
//    plan asks for one launch per batch element (FftConfig::per_batch);
//  - deleteVkFFT leaves multi-pass Bluestein axes alive: they are deleted
//    before it.
#pragma once

#include <memory>
#include <string>

#include "plan/fft_config.h"
#include "runtime/external_command.h"
#include "runtime/gpu_timer.h"

namespace vkxla {

// The factory the external command registry (runtime/external_command.h)
// holds under "vkfft": `config` is an FftConfig's text.
StatusOr<std::unique_ptr<ExternalCommand>> PrepareVkfftCommand(Device& device, const std::string& config);

// For benchmarks: the device time of `runs` launches of VkFFT's own plan
// of the transform `config` describes, used as VkFFT's examples use it (in
// place in a buffer of its own; VkFFT's R2C for a real input), so that a
// step's time can be set against it.
StatusOr<Timing> TimeVkfftDirectly(Device& device, const FftConfig& config, int runs);

}  // namespace vkxla
