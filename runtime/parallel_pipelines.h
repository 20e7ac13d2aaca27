// Pipelines for many kernels at once: the GLSL -> SPIR-V compile and the
// driver's own compile (lavapipe runs LLVM) take tens to hundreds of
// milliseconds a kernel, and a model has hundreds of kernels, so they are
// made on every core. Vulkan allows concurrent vkCreateComputePipelines
// (the pipeline cache synchronizes itself) and glslang is thread-safe once
// initialized.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "runtime/device.h"
#include "runtime/pipeline.h"
#include "vkxla/status.h"

namespace vkxla {

struct PipelineRequest {
  std::string glsl;
  uint32_t bindings = 0;
};

// One pipeline per request, in order; the first error (in request order)
// when any fails.
StatusOr<std::vector<std::shared_ptr<ComputePipeline>>> CreatePipelinesInParallel(
    Device& device, const std::vector<PipelineRequest>& requests);

}  // namespace vkxla
