#include "runtime/parallel_pipelines.h"

#include <algorithm>
#include <atomic>
#include <optional>
#include <thread>

namespace vkxla {

StatusOr<std::vector<std::shared_ptr<ComputePipeline>>> CreatePipelinesInParallel(
    Device& device, const std::vector<PipelineRequest>& requests) {
  const size_t n = requests.size();
  std::vector<std::shared_ptr<ComputePipeline>> pipelines(n);
  std::vector<std::optional<Status>> errors(n);
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < n; i = next++) {
      StatusOr<std::unique_ptr<ComputePipeline>> p =
          ComputePipeline::FromGlsl(device, requests[i].glsl, requests[i].bindings);
      if (p.ok()) pipelines[i] = std::move(*p);
      else errors[i] = p.status();
    }
  };
  const size_t threads = std::min<size_t>(n, std::max(1u, std::min(std::thread::hardware_concurrency(), 16u)));
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  for (const std::optional<Status>& e : errors)
    if (e) return *e;
  return pipelines;
}

}  // namespace vkxla
