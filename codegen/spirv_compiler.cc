#include "codegen/spirv_compiler.h"

#include "codegen/spirv_float_controls.h"
#include "codegen/spirv_float64_lowering.h"
#include "codegen/spirv_int64_lowering.h"

#include <glslang/Public/ResourceLimits.h>
#include <glslang/Public/ShaderLang.h>
#include <glslang/SPIRV/GlslangToSpv.h>

#include <mutex>
#include <sstream>
#include <spirv-tools/libspirv.hpp>
#include <spirv-tools/optimizer.hpp>

namespace vkxla {

void InitializeGlslangOnce() {
  static std::once_flag once;
  std::call_once(once, [] { glslang::InitializeProcess(); });
}

namespace {

std::string WithLineNumbers(const std::string& src) {
  std::istringstream in(src);
  std::string line, out;
  int n = 1;
  while (std::getline(in, line)) out += std::to_string(n++) + ": " + line + "\n";
  return out;
}

constexpr size_t kMaxOptimizedWords = size_t{1} << 20;

// SPIRV-Tools' performance recipe (-O, as 2023.1 orders it) without its
// conditional constant propagation (CCP). Where the module declares the
// float-controls capabilities, 2023.1's CCP does not fold GLSL.std.450's
// SMax, yet treats a loop phi fed by `acc = max(acc, 5)` as the constant
// it enters with: that window loop stored its initial 0 for every integer
// type (found by a random program; tests/reduction_test.cc's
// Reduction.ReduceWindowOverAConstantKeepsItsValue). Later passes and the
// driver still fold constants locally.
std::vector<std::string> PerformancePassesWithoutCcp() {
  return {"--wrap-opkill", "--eliminate-dead-branches", "--merge-return", "--inline-entry-points-exhaustive",
          "--eliminate-dead-functions", "--eliminate-dead-code-aggressive", "--private-to-local",
          "--eliminate-local-single-block", "--eliminate-local-single-store", "--eliminate-dead-code-aggressive",
          "--scalar-replacement=100", "--convert-local-access-chains", "--eliminate-local-single-block",
          "--eliminate-local-single-store", "--eliminate-dead-code-aggressive", "--ssa-rewrite",
          "--eliminate-dead-code-aggressive", "--loop-unroll",  // -O has --ccp and another ADCE here
          "--eliminate-dead-branches", "--redundancy-elimination", "--combine-access-chains", "--simplify-instructions",
          "--scalar-replacement=100", "--convert-local-access-chains", "--eliminate-local-single-block",
          "--eliminate-local-single-store", "--eliminate-dead-code-aggressive", "--ssa-rewrite",
          "--eliminate-dead-code-aggressive", "--vector-dce", "--eliminate-dead-inserts", "--eliminate-dead-branches",
          "--simplify-instructions", "--if-conversion", "--copy-propagate-arrays", "--reduce-load-size",
          "--eliminate-dead-code-aggressive", "--merge-blocks", "--redundancy-elimination", "--eliminate-dead-branches",
          "--merge-blocks", "--simplify-instructions"};
}

}  // namespace

StatusOr<std::vector<uint32_t>> CompileGlslToSpirv(const std::string& glsl, uint32_t vulkan_version, bool optimize,
                                                   const FloatControls& float_controls, bool lower_int64,
                                                   bool lower_float64, bool soft_float_calls) {
  InitializeGlslangOnce();
  const bool vk12 = vulkan_version >= ((1u << 22) | (2u << 12));
  const auto client = vk12 ? glslang::EShTargetVulkan_1_2 : glslang::EShTargetVulkan_1_1;
  const auto spv = vk12 ? glslang::EShTargetSpv_1_5 : glslang::EShTargetSpv_1_3;
  glslang::TShader shader(EShLangCompute);
  const char* text = glsl.c_str();
  shader.setStrings(&text, 1);
  shader.setEnvInput(glslang::EShSourceGlsl, EShLangCompute, glslang::EShClientVulkan, 100);
  shader.setEnvClient(glslang::EShClientVulkan, client);
  shader.setEnvTarget(glslang::EShTargetSpv, spv);
  const EShMessages messages = static_cast<EShMessages>(EShMsgSpvRules | EShMsgVulkanRules);
  if (!shader.parse(GetDefaultResources(), 450, false, messages))
    return Internal(std::string("glslang rejected a generated kernel: ") + shader.getInfoLog() + "\n" + WithLineNumbers(glsl));
  glslang::TProgram program;
  program.addShader(&shader);
  if (!program.link(messages)) return Internal(std::string("glslang link failed: ") + program.getInfoLog());
  std::vector<uint32_t> spirv;
  glslang::SpvOptions options;
  options.disableOptimizer = true;  // SPIRV-Tools runs below
  glslang::GlslangToSpv(*program.getIntermediate(EShLangCompute), spirv, &options);
  // A kernel planned for a target without shaderInt64 carries the word-pair
  // functions (the target may be narrower than the device compiling it:
  // tests plan for a phone on a desktop driver).
  lower_int64 = lower_int64 || glsl.find("void i64w_keep()") != std::string::npos;
  if (lower_int64 && SpirvUsesInt64(spirv)) {
    VKXLA_ASSIGN_OR_RETURN(spirv, LowerInt64ToWordPairs(spirv));
  }
  // After the integer pass: its conversions to doubles are double code.
  // With the library the pass runs even on a kernel left without doubles:
  // it freezes the library's keep constant, so the optimizer drops it.
  // The pairs library calls the IEEE one's integer conversions, so its
  // mark decides first.
  const bool pairs_library = glsl.find("void f64p_keep()") != std::string::npos;
  const bool soft_float_library = glsl.find("void f64s_keep()") != std::string::npos;
  if (pairs_library) {
    VKXLA_ASSIGN_OR_RETURN(spirv, LowerFloat64(spirv, Float64Form::kPairs, soft_float_calls));
  } else if (soft_float_library || (lower_float64 && SpirvUsesFloat64(spirv))) {
    VKXLA_ASSIGN_OR_RETURN(spirv, LowerFloat64(spirv, Float64Form::kSoft, soft_float_calls));
  }

  // Before the optimizer too: its folding fuses a multiply and an add
  // into one Fma unless they carry NoContraction. Again after it, for the
  // arithmetic it creates.
  // Execution modes need Vulkan 1.2; NoContraction is SPIR-V 1.0.
  FloatControls controls = float_controls;
  if (!vk12) controls = FloatControls{.no_contraction = float_controls.no_contraction};
  VKXLA_ASSIGN_OR_RETURN(spirv, ApplyFloatControls(spirv, controls));
  const spv_target_env env = vk12 ? SPV_ENV_VULKAN_1_2 : SPV_ENV_VULKAN_1_1;
  spvtools::SpirvTools tools(env);
  std::string diagnostics;
  tools.SetMessageConsumer([&](spv_message_level_t, const char*, const spv_position_t& pos, const char* m) {
    diagnostics += std::to_string(pos.index) + ": " + m + "\n";
  });
  // SPIRV-Tools' performance passes cost about 3.5 us per word; past a
  // million words (a kernel of ~40,000 fused ops) the driver's own
  // optimizer is left to it (a 100,000-op kernel: 8.6 s of spirv-opt).
  if (optimize && spirv.size() <= kMaxOptimizedWords) {
    spvtools::Optimizer opt(env);
    opt.SetMessageConsumer([&](spv_message_level_t, const char*, const spv_position_t&, const char* m) { diagnostics += m; });
    // The emulation libraries' keep branch tests a specialization constant
    // the lowering froze: folded first, the branch and the library
    // functions nothing else calls go (else every kernel carried them all).
    opt.RegisterPass(spvtools::CreateFoldSpecConstantOpAndCompositePass());
    if (!opt.RegisterPassesFromFlags(PerformancePassesWithoutCcp()))
      return Internal("SPIRV-Tools rejected the optimization recipe:\n" + diagnostics);
    // Functions kept as calls (the software-float library) whose last
    // caller the recipe removed late.
    opt.RegisterPass(spvtools::CreateEliminateDeadFunctionsPass());
    std::vector<uint32_t> optimized;
    // The optimizer validates its input first: glslang's output is checked there.
    if (!opt.Run(spirv.data(), spirv.size(), &optimized))
      return Internal("SPIR-V validation or optimization failed for a generated kernel:\n" + diagnostics);
    spirv = std::move(optimized);
  }
  VKXLA_ASSIGN_OR_RETURN(spirv, ApplyFloatControls(spirv, controls));
  if (!tools.Validate(spirv)) return Internal("SPIR-V validation failed for a generated kernel:\n" + diagnostics);
  return spirv;
}

}  // namespace vkxla
