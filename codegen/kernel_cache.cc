#include "codegen/kernel_cache.h"

#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "codegen/spirv_compiler.h"

namespace vkxla {

// Raised whenever CompileGlslToSpirv turns the same source into other
// SPIR-V (2: 64-bit integers as word pairs; 4: the optimizer without CCP),
// so no disk cache keeps the old.
constexpr int kCompilerRevision = 4;

std::string ContentHash(const std::string& data) {
  uint64_t h1 = 0xcbf29ce484222325ull, h2 = 0x84222325cbf29ce4ull;
  for (unsigned char c : data) {
    h1 = (h1 ^ c) * 0x100000001b3ull;
    h2 = (h2 ^ c) * 0x100000001b3ull + (h2 >> 29);
  }
  char buf[40];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(h1), static_cast<unsigned long long>(h2));
  return buf;
}

KernelCache& KernelCache::Global() {
  static KernelCache cache;
  return cache;
}

std::string KernelCache::directory() const {
  if (fixed_) return fixed_directory_;
  const char* off = std::getenv("VKXLA_DISABLE_DISK_CACHE");
  if (off && std::string(off) == "1") return "";
  if (const char* dir = std::getenv("VKXLA_CACHE_DIR")) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/vkxla";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/vkxla";
  return "";
}

// VKXLA_DUMP_GLSL=DIR: every kernel's source as DIR/<key>.comp, for
// reading what the builders wrote (cached or not).
static void DumpGlsl(const std::string& key, const std::string& glsl) {
  const char* dir = std::getenv("VKXLA_DUMP_GLSL");
  if (!dir || !*dir) return;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  std::ofstream(std::string(dir) + "/" + key + ".comp") << glsl;
}

void KernelCache::ClearMemory() {
  std::lock_guard<std::mutex> lock(mu_);
  memory_.clear();
}

StatusOr<std::vector<uint32_t>> KernelCache::GetOrCompile(const std::string& glsl, const TargetFeatures& target) {
  const std::string key = ContentHash(glsl + "\n//" + target.CacheKey() + "|opt=1|compiler=" + std::to_string(kCompilerRevision));
  DumpGlsl(key, glsl);
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = memory_.find(key);
    if (it != memory_.end()) {
      ++stats_.memory_hits;
      return it->second;
    }
  }
  const std::string dir = directory();
  const std::string path = dir.empty() ? "" : dir + "/" + key + ".spv";
  if (!path.empty()) {
    std::ifstream in(path, std::ios::binary);
    if (in) {
      std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      // A valid module starts with the SPIR-V magic; anything else is stale.
      if (bytes.size() >= 20 && bytes.size() % 4 == 0 && *reinterpret_cast<const uint32_t*>(bytes.data()) == 0x07230203u) {
        std::vector<uint32_t> spirv(bytes.size() / 4);
        std::memcpy(spirv.data(), bytes.data(), bytes.size());
        std::lock_guard<std::mutex> lock(mu_);
        ++stats_.disk_hits;
        memory_[key] = spirv;
        return spirv;
      }
    }
  }
  VKXLA_ASSIGN_OR_RETURN(std::vector<uint32_t> spirv, CompileGlslToSpirv(glsl, target.vulkan_api_version, true, target.float_controls, !target.int64,
                                                                                 !target.float64, target.soft_float_calls));
  if (!path.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    // Write then rename so a concurrent reader never sees half a file.
    const std::string tmp = path + ".tmp" + std::to_string(reinterpret_cast<uintptr_t>(&spirv));
    std::ofstream out(tmp, std::ios::binary);
    if (out) {
      out.write(reinterpret_cast<const char*>(spirv.data()), spirv.size() * 4);
      out.close();
      std::filesystem::rename(tmp, path, ec);
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  ++stats_.compiles;
  memory_[key] = spirv;
  return spirv;
}

}  // namespace vkxla
