// Compiled kernels by a hash of (GLSL source, target features, options):
// in memory for this process and on disk ($XDG_CACHE_HOME/vkxla, else
// ~/.cache/vkxla) across processes. VKXLA_CACHE_DIR overrides the folder;
// VKXLA_DISABLE_DISK_CACHE=1 turns the disk off.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "plan/target_features.h"
#include "vkxla/status.h"

namespace vkxla {

class KernelCache {
 public:
  static KernelCache& Global();
  // A cache on the folder `directory` ("" for memory only), whatever the
  // environment says; Global() follows the environment.
  KernelCache() = default;
  explicit KernelCache(std::string directory) : fixed_directory_(std::move(directory)), fixed_(true) {}

  // SPIR-V for `glsl`, compiled on a miss.
  StatusOr<std::vector<uint32_t>> GetOrCompile(const std::string& glsl, const TargetFeatures& target);

  std::string directory() const;  // "" when the disk cache is off
  void ClearMemory();
  struct Stats { int memory_hits = 0, disk_hits = 0, compiles = 0; };
  Stats stats() const { return stats_; }

 private:
  std::mutex mu_;
  std::map<std::string, std::vector<uint32_t>> memory_;
  Stats stats_;
  std::string fixed_directory_;
  bool fixed_ = false;
};

// 128-bit FNV-1a style content hash as 32 hex digits.
std::string ContentHash(const std::string& data);

}  // namespace vkxla
