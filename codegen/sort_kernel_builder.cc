// Sort and topk through a permutation (plan/sort_config.h): a bitonic
// network sorts each line's element indices (padded to a power of two with
// sentinels that sort last), comparing the operands' values at those
// indices. Ties are broken by the original index, so every sort is stable,
// and the result is the same on every device. Kernel 0 sorts or merges
// blocks in shared memory; kernel 1 is one step wider than a block. Both
// read k and j from push constants. The results are then index maps
// through the permutation (ElementEmitter::SortResults).
#include "codegen/element_emitter.h"
#include "codegen/glsl_index_arithmetic.h"
#include "codegen/glsl_types.h"
#include "codegen/kernel_builder.h"
#include "ops/reduction_shapes.h"

namespace vkxla {
namespace {

// Indices of `line`'s other dims (row-major over the dims but `dim`).
std::vector<std::string> LineIndex(const Shape& x, int64_t dim, const std::string& line) {
  GlslIndexArithmetic a;
  std::vector<std::string> idx(x.rank(), "0u");
  int64_t stride = 1;
  for (int64_t d = x.rank() - 1; d >= 0; --d) {
    if (d == dim) continue;
    idx[d] = a.ModConstant(a.DivConstant(line, stride), x.dim(d));
    stride *= x.dim(d);
  }
  return idx;
}

class SortKernelBuilder : public ElementEmitter {
 public:
  SortKernelBuilder(const Program& program, const FusionGroup& group)
      : ElementEmitter(program, group), c_(std::get<SortConfig>(group.config)), sort_(*group.hero) {}

  StatusOr<KernelSource> Build(int kernel) {
    out_ = program_.buffers[group_.scratch[0]].shape;
    out_layout_ = out_.layout_or_default();
    key_count_ = sort_.opcode == Opcode::kTopK ? 1 : sort_.operands.size();
    for (size_t k = 0; k < key_count_; ++k) {
      const ElementType t = sort_.operands[k]->shape.element_type();
      VKXLA_RETURN_IF_ERROR(Use(t, sort_));
      VKXLA_ASSIGN_OR_RETURN(GlslType gt, GlslTypeFor(t, target_, sort_.Describe()));
      types_.push_back(gt);
    }
    perm_ = BindBuffer(group_.scratch[0], Access::kReadWrite, "perm");
    push_constants_ = "layout(push_constant) uniform Push { uint k0, k1, j0, initial; } pc;\n";
    return kernel == 0 ? Local() : Wide();
  }

 private:
  // The sort keys of element `j` of the line whose other dims are `line`.
  StatusOr<std::vector<std::string>> Keys(const std::vector<std::string>& line, const std::string& j) {
    std::vector<std::string> idx = line;
    idx[c_.dim] = Temp("uint", "min(" + j + ", " + U(c_.length - 1) + ")");  // a sentinel reads the last element
    std::vector<std::string> keys;
    for (size_t k = 0; k < key_count_; ++k) {
      VKXLA_ASSIGN_OR_RETURN(std::string v, Value(sort_.operands[k], idx));
      keys.push_back(v);
    }
    return keys;
  }

  // Whether record a sorts before record b: a bool temporary.
  StatusOr<std::string> Before(const std::vector<std::string>& a, const std::vector<std::string>& b, const std::string& ia,
                               const std::string& ib) {
    std::string lt, gt;
    if (sort_.opcode == Opcode::kTopK) {
      VKXLA_ASSIGN_OR_RETURN(TopKPlan plan, PlanTopK(sort_));
      const ElementType t = sort_.operands[0]->shape.element_type();
      std::string key_a = a[0], key_b = b[0];
      if (IsFloat(t)) {
        // Total order: flip the magnitude bits of negative values.
        if (t == ElementType::kF64) {
          Helper("total_key_d", "int64_t total_key_d(double x) { int64_t i = int64_t(packUint2x32(unpackDouble2x32(x))); "
                                "return i ^ ((i >> 63) & 0x7fffffffffffffffl); }\n");
          VKXLA_RETURN_IF_ERROR(Use(ElementType::kS64, sort_));
          key_a = "total_key_d(" + a[0] + ")";
          key_b = "total_key_d(" + b[0] + ")";
        } else {
          Helper("total_key_f", "int total_key_f(float x) { int i = floatBitsToInt(x); return i ^ ((i >> 31) & 0x7fffffff); }\n");
          key_a = "total_key_f(" + a[0] + ")";
          key_b = "total_key_f(" + b[0] + ")";
        }
      }
      lt = Temp("bool", plan.largest ? key_b + " < " + key_a : key_a + " < " + key_b);
      gt = Temp("bool", plan.largest ? key_a + " < " + key_b : key_b + " < " + key_a);
    } else {
      const Computation* less = sort_.called_computations[0].second;
      std::vector<std::string> ab, ba;
      for (size_t k = 0; k < a.size(); ++k) {
        ab.push_back(a[k]);
        ab.push_back(b[k]);
        ba.push_back(b[k]);
        ba.push_back(a[k]);
      }
      VKXLA_ASSIGN_OR_RETURN(std::vector<std::string> r1, Apply(*less, ab));
      lt = Temp("bool", r1[0]);
      VKXLA_ASSIGN_OR_RETURN(std::vector<std::string> r2, Apply(*less, ba));
      gt = Temp("bool", r2[0]);
    }
    const std::string n = U(c_.length);
    // Sentinels (indices past the line) sort last; ties go by index.
    return Temp("bool", "(" + ia + " < " + n + ") ? (" + ib + " >= " + n + " || " + lt + " || (!" + gt + " && " + ia + " < " +
                            ib + ")) : (" + ib + " >= " + n + " && " + ia + " < " + ib + ")");
  }

  // Stages k0..k1 of the network on blocks in shared memory, each from its
  // first step j (j0 for the first); `initial` starts from the identity.
  StatusOr<KernelSource> Local() {
    const int64_t block = c_.block, blocks_per_line = c_.padded / block, groups = c_.lines * blocks_per_line;
    const Shape& x = sort_.operands[0]->shape;
    const std::string n_pad = U(c_.padded);
    shared_ = "shared uint sidx[" + std::to_string(block) + "];\n";
    for (size_t i = 0; i < key_count_; ++i)
      shared_ += "shared " + types_[i].compute + " skey" + std::to_string(i) + "[" + std::to_string(block) + "];\n";
    std::string main = "  uint lid = gl_LocalInvocationID.x;\n  uint wg = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;\n";
    main += "  if (wg >= " + U(groups) + ") return;\n";
    main += "  uint line = wg / " + U(blocks_per_line) + ", base = (wg % " + U(blocks_per_line) + ") * " + U(block) + ";\n";
    // Load the block: indices, and the keys at them.
    main += "  for (uint e = lid; e < " + U(block) + "; e += 256u) {\n";
    main += "    uint j = pc.initial != 0u ? base + e : W(" + perm_ + ", line * " + n_pad + " + base + e);\n    sidx[e] = j;\n";
    body_.clear();
    ClearMemo();
    VKXLA_ASSIGN_OR_RETURN(std::vector<std::string> keys, Keys(LineIndex(x, c_.dim, "line"), "j"));
    main += body_;
    for (size_t i = 0; i < key_count_; ++i) main += "    skey" + std::to_string(i) + "[e] = " + keys[i] + ";\n";
    main += "  }\n  barrier();\n";
    main += "  for (uint k = pc.k0; k <= pc.k1; k <<= 1u) {\n";
    main += "  for (uint jj = k == pc.k0 ? pc.j0 : k >> 1u; jj > 0u; jj >>= 1u) {\n";
    main += "  for (uint q = lid; q < " + U(block / 2) + "; q += 256u) {\n";
    main += "    uint i = ((q & ~(jj - 1u)) << 1u) | (q & (jj - 1u)), m = i + jj;\n";
    main += "    bool up = ((base + i) & k) == 0u;\n";
    body_.clear();
    ClearMemo();
    std::vector<std::string> a, b;
    for (size_t i = 0; i < key_count_; ++i) {
      a.push_back(Temp(types_[i].compute, "skey" + std::to_string(i) + "[i]"));
      b.push_back(Temp(types_[i].compute, "skey" + std::to_string(i) + "[m]"));
    }
    const std::string ia = Temp("uint", "sidx[i]"), ib = Temp("uint", "sidx[m]");
    VKXLA_ASSIGN_OR_RETURN(std::string ab, Before(a, b, ia, ib));
    VKXLA_ASSIGN_OR_RETURN(std::string ba, Before(b, a, ib, ia));
    main += body_ + "    if (up ? " + ba + " : " + ab + ") {\n      sidx[i] = " + ib + "; sidx[m] = " + ia + ";\n";
    for (size_t i = 0; i < key_count_; ++i)
      main += "      skey" + std::to_string(i) + "[i] = " + b[i] + "; skey" + std::to_string(i) + "[m] = " + a[i] + ";\n";
    main += "    }\n  }\n  barrier();\n  }\n  }\n";
    main += "  for (uint e = lid; e < " + U(block) + "; e += 256u) W(" + perm_ + ", line * " + n_pad + " + base + e) = sidx[e];\n}\n";
    return Finish(group_.kernels[0].name, 256, main);
  }

  // One step (k, j) wider than a block: an invocation per pair.
  StatusOr<KernelSource> Wide() {
    const int64_t pairs = c_.lines * c_.padded / 2;
    const Shape& x = sort_.operands[0]->shape;
    const std::string n_pad = U(c_.padded);
    std::string main = "  if (inv >= " + U(pairs) + ") return;\n";
    main += "  uint line = inv / " + U(c_.padded / 2) + ", q = inv % " + U(c_.padded / 2) + ", jj = pc.j0, k = pc.k0;\n";
    main += "  uint i = ((q & ~(jj - 1u)) << 1u) | (q & (jj - 1u)), m = i + jj;\n";
    main += "  bool up = (i & k) == 0u;\n";
    main += "  uint wi = line * " + n_pad + " + i, wm = line * " + n_pad + " + m;\n";
    main += "  uint ia = W(" + perm_ + ", wi), ib = W(" + perm_ + ", wm);\n";
    body_.clear();
    ClearMemo();
    const std::vector<std::string> line = LineIndex(x, c_.dim, "line");
    VKXLA_ASSIGN_OR_RETURN(std::vector<std::string> a, Keys(line, "ia"));
    VKXLA_ASSIGN_OR_RETURN(std::vector<std::string> b, Keys(line, "ib"));
    VKXLA_ASSIGN_OR_RETURN(std::string ab, Before(a, b, "ia", "ib"));
    VKXLA_ASSIGN_OR_RETURN(std::string ba, Before(b, a, "ib", "ia"));
    main += body_ + "  if (up ? " + ba + " : " + ab + ") {\n    W(" + perm_ + ", wi) = ib;\n    W(" + perm_ + ", wm) = ia;\n  }\n}\n";
    return Finish(group_.kernels[1].name, 256, main);
  }

  const SortConfig& c_;
  const Instruction& sort_;
  size_t key_count_ = 1;
  std::vector<GlslType> types_;
  std::string perm_;
};

}  // namespace

StatusOr<KernelSource> BuildSortKernel(const Program& program, const FusionGroup& group, int kernel) {
  return SortKernelBuilder(program, group).Build(kernel);
}

}  // namespace vkxla
