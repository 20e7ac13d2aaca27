#include "tools/op_support.h"

#include <functional>
#include <sstream>
#include <vector>

#include "codegen/kernel_builder.h"
#include "frontends/hlo_text.h"
#include "frontends/xla_builder.h"
#include "ir/element_type.h"
#include "ops/op_traits.h"
#include "plan/planner.h"
#include "plan/target_profiles.h"

namespace vkxla {
namespace {

enum class Support { kNotTaken, kEverywhere, kWithFeature, kNotBuilt };

const std::vector<ElementType>& Types() {
  return ArrayElementTypes();
}

// Whether every kernel of the planned module generates for `target`.
Status Builds(const Module& module, const TargetFeatures& target) {
  VKXLA_ASSIGN_OR_RETURN(Program program, PlanModule(module, target));
  for (const FusionGroup& g : program.groups)
    for (size_t k = 0; k < g.kernels.size(); ++k) VKXLA_RETURN_IF_ERROR(BuildKernel(program, g, static_cast<int>(k)).status());
  return OkStatus();
}

Support Classify(const StatusOr<std::unique_ptr<Module>>& module) {
  // An op without shape rules yet is "not built" for every type.
  if (!module.ok()) return module.status().code() == StatusCode::kUnimplemented ? Support::kNotBuilt : Support::kNotTaken;
  if (!Builds(**module, DesktopGpuTarget()).ok()) return Support::kNotBuilt;
  return Builds(**module, PhoneTarget()).ok() ? Support::kEverywhere : Support::kWithFeature;
}

// An op's instance for element type T.
using Instance = std::function<StatusOr<std::unique_ptr<Module>>(ElementType)>;

// HLO text with $T for the element type.
Instance Hlo(std::string text) {
  return [text](ElementType t) {
    std::string s = text;
    const std::string name(ElementTypeName(t));
    for (size_t at = s.find("$T"); at != std::string::npos; at = s.find("$T", at)) s.replace(at, 2, name);
    return ParseAndVerifyHlo(s);
  };
}

Instance Elementwise(Opcode op) {
  return [op](ElementType t) -> StatusOr<std::unique_ptr<Module>> {
    XlaBuilder b("op");
    const Shape shape(t, {4, 8});
    XlaOp x = b.Parameter(0, shape, "x");
    XlaOp r;
    if (IsElementwiseUnary(op)) {
      r = b.Unary(op, x);
    } else if (op == Opcode::kCompare) {
      r = b.Compare(x, b.Parameter(1, shape, "y"), ComparisonDirection::kLt);
    } else if (op == Opcode::kSelect) {
      r = b.Select(b.Parameter(1, Shape(ElementType::kPred, {4, 8}), "p"), x, b.Parameter(2, shape, "y"));
    } else if (op == Opcode::kClamp) {
      r = b.Clamp(b.Parameter(1, shape, "lo"), x, b.Parameter(2, shape, "hi"));
    } else {
      r = b.Binary(op, x, b.Parameter(1, shape, "y"));
    }
    return b.Build(r);
  };
}

struct OpRow {
  std::string name;
  Instance instance;
};

std::vector<OpRow> Rows() {
  std::vector<OpRow> rows;
  // Elementwise ops, from the opcode list (convert and its kin are below).
  for (int i = 0; i <= static_cast<int>(Opcode::kWhile); ++i) {
    const Opcode op = static_cast<Opcode>(i);
    if (!IsElementwise(op) || op == Opcode::kConvert || op == Opcode::kBitcastConvert || op == Opcode::kReducePrecision)
      continue;
    rows.push_back({std::string(OpcodeName(op)) + (op == Opcode::kCompare ? " (LT)" : ""), Elementwise(op)});
  }
  const std::string p = "HloModule m\nENTRY e {\n  x = $T[4,8] parameter(0)\n";
  const std::string add = "HloModule m\nadd {\n  a = $T[] parameter(0)\n  b = $T[] parameter(1)\n  ROOT s = $T[] add(a, b)\n}\n";
  const std::string lt = "HloModule m\nlt {\n  a = $T[] parameter(0)\n  b = $T[] parameter(1)\n  ROOT c = pred[] compare(a, b), direction=LT\n}\n";
  rows.insert(rows.end(), {
      {"convert (to f32)", Hlo(p + "  ROOT r = f32[4,8] convert(x)\n}")},
      {"convert (from f32)", Hlo("HloModule m\nENTRY e {\n  x = f32[4,8] parameter(0)\n  ROOT r = $T[4,8] convert(x)\n}")},
      {"bitcast-convert", Hlo(p + "  ROOT r = $T[4,8] bitcast-convert(x)\n}")},
      {"reduce-precision", Hlo(p + "  ROOT r = $T[4,8] reduce-precision(x), exponent_bits=5, mantissa_bits=7\n}")},
      {"broadcast", Hlo(p + "  ROOT r = $T[3,4,8] broadcast(x), dimensions={1,2}\n}")},
      {"iota", Hlo("HloModule m\nENTRY e {\n  ROOT r = $T[4,8] iota(), iota_dimension=1\n}")},
      {"reshape", Hlo(p + "  ROOT r = $T[32] reshape(x)\n}")},
      {"transpose", Hlo(p + "  ROOT r = $T[8,4] transpose(x), dimensions={1,0}\n}")},
      {"slice", Hlo(p + "  ROOT r = $T[2,3] slice(x), slice={[1:3], [2:8:2]}\n}")},
      {"concatenate", Hlo(p + "  ROOT r = $T[8,8] concatenate(x, x), dimensions={0}\n}")},
      {"pad", Hlo(p + "  z = $T[] parameter(1)\n  ROOT r = $T[6,10] pad(x, z), padding=1_1x1_1\n}")},
      {"reverse", Hlo(p + "  ROOT r = $T[4,8] reverse(x), dimensions={1}\n}")},
      {"dynamic-slice", Hlo(p + "  i = s32[] parameter(1)\n  ROOT r = $T[2,8] dynamic-slice(x, i, i), dynamic_slice_sizes={2,8}\n}")},
      {"dynamic-update-slice", Hlo(p + "  u = $T[2,8] parameter(1)\n  i = s32[] parameter(2)\n"
                                       "  ROOT r = $T[4,8] dynamic-update-slice(x, u, i, i)\n}")},
      {"gather", Hlo(p + "  i = s32[3,1] parameter(1)\n  ROOT r = $T[3,8] gather(x, i), offset_dims={1}, "
                         "collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,8}\n}")},
      {"scatter (add)", Hlo(add + "ENTRY e {\n  x = $T[4,8] parameter(0)\n  i = s32[3,1] parameter(1)\n  u = $T[3,8] parameter(2)\n"
                                  "  ROOT r = $T[4,8] scatter(x, i, u), update_window_dims={1}, inserted_window_dims={0}, "
                                  "scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add\n}")},
      {"reduce (add)", Hlo(add + "ENTRY e {\n  x = $T[4,8] parameter(0)\n  z = $T[] parameter(1)\n"
                                 "  ROOT r = $T[4] reduce(x, z), dimensions={1}, to_apply=add\n}")},
      {"reduce-window (add)", Hlo(add + "ENTRY e {\n  x = $T[4,8] parameter(0)\n  z = $T[] parameter(1)\n"
                                        "  ROOT r = $T[3,7] reduce-window(x, z), window={size=2x2}, to_apply=add\n}")},
      {"map (add)", Hlo(add + "ENTRY e {\n  x = $T[4,8] parameter(0)\n  ROOT r = $T[4,8] map(x, x), dimensions={0,1}, to_apply=add\n}")},
      {"sort", Hlo(lt + "ENTRY e {\n  x = $T[4,8] parameter(0)\n  ROOT r = $T[4,8] sort(x), dimensions={1}, to_apply=lt\n}")},
      {"topk", Hlo(p + "  ROOT r = ($T[4,3], s32[4,3]) topk(x), k=3, largest=true\n}")},
      {"dot", Hlo(p + "  y = $T[8,2] parameter(1)\n  ROOT r = $T[4,2] dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}")},
      {"fft (FFT)", Hlo(p + "  ROOT r = $T[4,8] fft(x), fft_type=FFT, fft_length={8}\n}")},
      {"cholesky", Hlo("HloModule m\nENTRY e {\n  a = $T[4,4] parameter(0)\n  ROOT r = $T[4,4] cholesky(a), lower=true\n}")},
      {"triangular-solve", Hlo("HloModule m\nENTRY e {\n  a = $T[4,4] parameter(0)\n  b = $T[4,8] parameter(1)\n"
                               "  ROOT r = $T[4,8] triangular-solve(a, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE\n}")},
      {"rng-bit-generator", Hlo("HloModule m\nENTRY e {\n  s = u64[2] parameter(0)\n"
                                "  ROOT r = (u64[2], $T[4,8]) rng-bit-generator(s), algorithm=rng_three_fry\n}")},
      {"rng (uniform)", Hlo("HloModule m\nENTRY e {\n  a = $T[] parameter(0)\n  b = $T[] parameter(1)\n"
                            "  ROOT r = $T[4,8] rng(a, b), distribution=rng_uniform\n}")},
      {"convolution", Hlo("HloModule m\nENTRY e {\n  x = $T[1,8,8,2] parameter(0)\n  w = $T[3,3,2,4] parameter(1)\n"
                          "  ROOT r = $T[1,6,6,4] convolution(x, w), window={size=3x3}, dim_labels=b01f_01io->b01f\n}")},
      {"all-reduce (add)", Hlo(add + "ENTRY e {\n  x = $T[4,8] parameter(0)\n  ROOT r = $T[4,8] all-reduce(x), to_apply=add\n}")},
      {"all-gather", Hlo(p + "  ROOT r = $T[4,8] all-gather(x), dimensions={0}\n}")},
      {"reduce-scatter (add)", Hlo(add + "ENTRY e {\n  x = $T[4,8] parameter(0)\n  ROOT r = $T[4,8] reduce-scatter(x), dimensions={1}, "
                                         "to_apply=add\n}")},
      {"all-to-all", Hlo(p + "  ROOT r = $T[4,8] all-to-all(x), dimensions={0}\n}")},
      {"collective-permute", Hlo(p + "  ROOT r = $T[4,8] collective-permute(x), source_target_pairs={{0,0}}\n}")},
      {"collective-broadcast", Hlo(p + "  ROOT r = $T[4,8] collective-broadcast(x), replica_groups={}\n}")},
      {"ragged-all-to-all", Hlo(p + "  o = $T[4,8] parameter(1)\n  i = s32[1] parameter(2)\n"
                                    "  ROOT r = $T[4,8] ragged-all-to-all(x, o, i, i, i, i), replica_groups={}\n}")},
  });
  return rows;
}

const char* Mark(Support s) {
  switch (s) {
    case Support::kEverywhere: return "✓";
    case Support::kWithFeature: return "✓⁶⁴";
    case Support::kNotBuilt: return "✗";
    case Support::kNotTaken: return "";
  }
  return "";
}

}  // namespace

std::string OpSupportMarkdown() {
  std::ostringstream o;
  o << "# Ops and element types\n\n"
       "Generated by `build/vkxla ops --markdown docs/ops.md` from the code (tools/op_support.cc): for each op and\n"
       "element type a small instance is verified, planned and its kernels generated, for a desktop GPU and for a\n"
       "phone without 64-bit types. A test fails when this file and the code disagree.\n\n"
       "- ✓ — runs on every Vulkan device\n"
       "- ✓⁶⁴ — would mark one that runs only where the device has shaderFloat64; none does: without it doubles\n"
       "  run as software floats (IEEE binary64 on word pairs; c128 FFTs as products with DFT matrices, lengths up\n"
       "  to 1024 and products of two such), as 64-bit integers run as pairs of 32-bit words without shaderInt64\n"       "- ✗ — the op takes the type, but this build does not run it yet (a clear error says so)\n"
       "- empty — the op does not take the type (the verifier rejects it, as XLA does)\n\n| op |";
  for (ElementType t : Types()) o << " " << ElementTypeName(t) << " |";
  o << "\n|---|";
  for (size_t i = 0; i < Types().size(); ++i) o << ":-:|";
  o << "\n";
  for (const OpRow& row : Rows()) {
    o << "| " << row.name << " |";
    for (ElementType t : Types()) o << " " << Mark(Classify(row.instance(t))) << " |";
    o << "\n";
  }
  return o.str();
}

}  // namespace vkxla
