// Sort and topk through a permutation: a bitonic network sorts each line's
// element indices (padded to a power of two with sentinels that sort
// last), comparing the operands' values at those indices. Ties are broken
// by the original index, so every sort is stable, and the result is the
// same on every device. The first passes and the last steps of every stage
// run on blocks in shared memory; steps wider than a block are one
// dispatch each (k and j in push constants, one shader per kind). Results
// are then index maps: element i of a line is the operand's element at
// permutation[i].
#include "codegen/fused_emitter.h"

#include "codegen/glsl_index_arithmetic.h"
#include "codegen/glsl_types.h"
#include "ops/computation_signature.h"
#include "ops/reduction_shapes.h"

namespace vkxla {
namespace {

struct SortGeometry {
  int64_t dim = 0, length = 0, padded = 1, lines = 1;
};

StatusOr<SortGeometry> GeometryOf(const Instruction& sort) {
  SortGeometry g;
  const Shape& x = sort.operands[0]->shape;
  if (sort.opcode == Opcode::kTopK) {
    g.dim = x.rank() - 1;
  } else {
    ASSIGN_OR_RETURN(g.dim, SortDimension(sort));
  }
  g.length = x.dim(g.dim);
  g.padded = PowerOfTwoAtLeast(std::max<int64_t>(g.length, 1));
  for (int64_t d = 0; d < x.rank(); ++d)
    if (d != g.dim) g.lines *= x.dim(d);
  return g;
}

// Bytes of one element in a shared-memory array of this compute type.
int SharedBytes(const std::string& compute) {
  if (compute == "double" || compute == "int64_t" || compute == "uint64_t" || compute == "vec2") return 8;
  if (compute == "dvec2") return 16;
  return 4;
}

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

// Elements a shared-memory block holds: index and keys of each, within 16
// KiB (Vulkan's minimum limit), at most 2048.
StatusOr<int64_t> SortBlockSize(const Instruction& sort, const TargetFeatures& target) {
  ASSIGN_OR_RETURN(SortGeometry g, GeometryOf(sort));
  int record_bytes = 4;
  const size_t key_count = sort.opcode == Opcode::kTopK ? 1 : sort.operands.size();
  for (size_t k = 0; k < key_count; ++k) {
    ASSIGN_OR_RETURN(GlslType gt, GlslTypeFor(sort.operands[k]->shape.element_type(), target, sort.Describe()));
    record_bytes += SharedBytes(gt.compute);
  }
  int64_t block = std::min<int64_t>(g.padded, 2048);
  while (block > 1 && block * record_bytes > 16384) block >>= 1;
  return block;
}

}  // namespace

bool NeedsPermutation(const Instruction& inst) { return inst.opcode == Opcode::kSort || inst.opcode == Opcode::kTopK; }

Shape PermutationShape(const Instruction& sort) {
  StatusOr<SortGeometry> g = GeometryOf(sort);
  const int64_t words = g.ok() ? g->lines * g->padded : 1;
  Shape s(ElementType::kU32, {std::max<int64_t>(words, 1)});
  s.set_layout(s.layout_or_default());
  return s;
}

StatusOr<std::vector<std::string>> FusedEmitter::SortKeys(const Instruction& sort, const std::vector<std::string>& line,
                                                          const std::string& j) {
  ASSIGN_OR_RETURN(SortGeometry g, GeometryOf(sort));
  std::vector<std::string> idx = line;
  idx[g.dim] = Temp("uint", "min(" + j + ", " + U(g.length - 1) + ")");  // a sentinel reads the last element
  std::vector<std::string> keys;
  const size_t count = sort.opcode == Opcode::kTopK ? 1 : sort.operands.size();
  for (size_t k = 0; k < count; ++k) {
    ASSIGN_OR_RETURN(std::string v, Value(sort.operands[k], idx));
    keys.push_back(v);
  }
  return keys;
}

StatusOr<std::string> FusedEmitter::SortBefore(const Instruction& sort, const std::vector<std::string>& a,
                                               const std::vector<std::string>& b, const std::string& ia,
                                               const std::string& ib) {
  ASSIGN_OR_RETURN(SortGeometry g, GeometryOf(sort));
  std::string lt, gt;
  if (sort.opcode == Opcode::kTopK) {
    ASSIGN_OR_RETURN(TopKPlan plan, PlanTopK(sort));
    const ElementType t = sort.operands[0]->shape.element_type();
    std::string key_a = a[0], key_b = b[0];
    if (IsFloat(t)) {
      // Total order: flip the magnitude bits of negative values.
      if (t == ElementType::kF64) {
        Helper("total_key_d", "int64_t total_key_d(double x) { int64_t i = int64_t(packUint2x32(unpackDouble2x32(x))); "
                              "return i ^ ((i >> 63) & 0x7fffffffffffffffl); }\n");
        int64_ = true;
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
    const Computation* less = sort.called_computations[0].second;
    std::vector<std::string> ab, ba;
    for (size_t k = 0; k < a.size(); ++k) {
      ab.push_back(a[k]);
      ab.push_back(b[k]);
      ba.push_back(b[k]);
      ba.push_back(a[k]);
    }
    ASSIGN_OR_RETURN(std::vector<std::string> r1, Apply(*less, ab));
    lt = Temp("bool", r1[0]);
    ASSIGN_OR_RETURN(std::vector<std::string> r2, Apply(*less, ba));
    gt = Temp("bool", r2[0]);
  }
  const std::string n = U(g.length);
  // Sentinels (indices past the line) sort last; ties go by index.
  return Temp("bool", "(" + ia + " < " + n + ") ? (" + ib + " >= " + n + " || " + lt + " || (!" + gt + " && " + ia + " < " +
                          ib + ")) : (" + ib + " >= " + n + " && " + ia + " < " + ib + ")");
}

StatusOr<KernelSource> FusedEmitter::EmitSortStep(const Instruction& sort, const Shape& permutation, bool local) {
  ASSIGN_OR_RETURN(SortGeometry g, GeometryOf(sort));
  root_ = nullptr;
  out_ = permutation;
  out_layout_ = permutation.layout_or_default();
  root_index_ = {"<no vector loads>"};
  out_readable_ = true;
  const Shape& x = sort.operands[0]->shape;
  const size_t key_count = sort.opcode == Opcode::kTopK ? 1 : sort.operands.size();
  std::vector<GlslType> types;
  for (size_t k = 0; k < key_count; ++k) {
    const ElementType t = sort.operands[k]->shape.element_type();
    RETURN_IF_ERROR(Use(t, sort));
    ASSIGN_OR_RETURN(GlslType gt, GlslTypeFor(t, target_, sort.Describe()));
    types.push_back(gt);
  }
  ASSIGN_OR_RETURN(const int64_t block, SortBlockSize(sort, target_));
  const std::string n_pad = U(g.padded);
  const std::string pc = "layout(push_constant) uniform Push { uint k0, k1, j0, initial; } pc;\n";
  std::string src;
  KernelSource k;
  k.output = permutation;
  k.local_size = 256;
  body_.clear();
  if (local) {
    const int64_t blocks_per_line = g.padded / block, groups = g.lines * blocks_per_line;
    shared_ = pc + "shared uint sidx[" + std::to_string(block) + "];\n";
    for (size_t i = 0; i < key_count; ++i)
      shared_ += "shared " + types[i].compute + " skey" + std::to_string(i) + "[" + std::to_string(block) + "];\n";
    std::string main = "  uint lid = gl_LocalInvocationID.x;\n  uint wg = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;\n";
    main += "  if (wg >= " + U(groups) + ") return;\n";
    main += "  uint line = wg / " + U(blocks_per_line) + ", base = (wg % " + U(blocks_per_line) + ") * " + U(block) + ";\n";
    // Load the block: indices, and the keys at them.
    main += "  for (uint e = lid; e < " + U(block) + "; e += 256u) {\n";
    main += "    uint j = pc.initial != 0u ? base + e : W(out0, line * " + n_pad + " + base + e);\n    sidx[e] = j;\n";
    memo_.clear();
    ASSIGN_OR_RETURN(std::vector<std::string> keys, SortKeys(sort, LineIndex(x, g.dim, "line"), "j"));
    main += body_;
    for (size_t i = 0; i < key_count; ++i) main += "    skey" + std::to_string(i) + "[e] = " + keys[i] + ";\n";
    main += "  }\n  barrier();\n";
    // The network: stages k0..k1, each from its first step j (j0 for the first).
    main += "  for (uint k = pc.k0; k <= pc.k1; k <<= 1u) {\n";
    main += "  for (uint jj = k == pc.k0 ? pc.j0 : k >> 1u; jj > 0u; jj >>= 1u) {\n";
    main += "  for (uint q = lid; q < " + U(block / 2) + "; q += 256u) {\n";
    main += "    uint i = ((q & ~(jj - 1u)) << 1u) | (q & (jj - 1u)), m = i + jj;\n";
    main += "    bool up = ((base + i) & k) == 0u;\n";
    body_.clear();
    memo_.clear();
    std::vector<std::string> a, b;
    for (size_t i = 0; i < key_count; ++i) {
      a.push_back(Temp(types[i].compute, "skey" + std::to_string(i) + "[i]"));
      b.push_back(Temp(types[i].compute, "skey" + std::to_string(i) + "[m]"));
    }
    const std::string ia = Temp("uint", "sidx[i]"), ib = Temp("uint", "sidx[m]");
    ASSIGN_OR_RETURN(std::string ab, SortBefore(sort, a, b, ia, ib));
    ASSIGN_OR_RETURN(std::string ba, SortBefore(sort, b, a, ib, ia));
    main += body_ + "    if (up ? " + ba + " : " + ab + ") {\n      sidx[i] = " + ib + "; sidx[m] = " + ia + ";\n";
    for (size_t i = 0; i < key_count; ++i)
      main += "      skey" + std::to_string(i) + "[i] = " + b[i] + "; skey" + std::to_string(i) + "[m] = " + a[i] + ";\n";
    main += "    }\n  }\n  barrier();\n  }\n  }\n";
    main += "  for (uint e = lid; e < " + U(block) + "; e += 256u) W(out0, line * " + n_pad + " + base + e) = sidx[e];\n}\n";
    k.name = "sort_local_" + sort.name;
    k.invocations = static_cast<uint64_t>(groups) * 256;
    src = Prologue(256, k.name) + main;
  } else {
    const int64_t pairs = g.lines * g.padded / 2;
    shared_ = pc;
    std::string main = "  if (inv >= " + U(pairs) + ") return;\n";
    main += "  uint line = inv / " + U(g.padded / 2) + ", q = inv % " + U(g.padded / 2) + ", jj = pc.j0, k = pc.k0;\n";
    main += "  uint i = ((q & ~(jj - 1u)) << 1u) | (q & (jj - 1u)), m = i + jj;\n";
    main += "  bool up = (i & k) == 0u;\n";
    main += "  uint wi = line * " + n_pad + " + i, wm = line * " + n_pad + " + m;\n";
    main += "  uint ia = W(out0, wi), ib = W(out0, wm);\n";
    memo_.clear();
    const std::vector<std::string> line = LineIndex(x, g.dim, "line");
    ASSIGN_OR_RETURN(std::vector<std::string> a, SortKeys(sort, line, "ia"));
    ASSIGN_OR_RETURN(std::vector<std::string> b, SortKeys(sort, line, "ib"));
    ASSIGN_OR_RETURN(std::string ab, SortBefore(sort, a, b, "ia", "ib"));
    ASSIGN_OR_RETURN(std::string ba, SortBefore(sort, b, a, "ib", "ia"));
    main += body_ + "  if (up ? " + ba + " : " + ab + ") {\n    W(out0, wi) = ib;\n    W(out0, wm) = ia;\n  }\n}\n";
    k.name = "sort_step_" + sort.name;
    k.invocations = static_cast<uint64_t>(pairs);
    src = Prologue(256, k.name) + main;
  }
  k.inputs = inputs_;
  k.glsl = std::move(src);
  return k;
}

StatusOr<std::vector<std::string>> FusedEmitter::SortResults(const Instruction* n, const std::vector<std::string>& idx) {
  ASSIGN_OR_RETURN(SortGeometry g, GeometryOf(*n));
  const Instruction* perm = planned_buffer_ ? planned_buffer_(n) : nullptr;
  if (!perm) return Internal(n->Describe() + ": no permutation buffer was planned");
  GlslIndexArithmetic a;
  std::string line = a.Constant(0);
  const Shape& x = n->operands[0]->shape;
  for (int64_t d = 0; d < x.rank(); ++d)
    if (d != g.dim) line = a.Add(a.MulConstant(line, x.dim(d)), idx[d]);
  const std::string word = Temp("uint", a.Add(a.MulConstant(line, g.padded), idx[g.dim]));
  ASSIGN_OR_RETURN(std::string j, Value(perm, {word}));
  std::vector<std::string> at = idx;
  at[g.dim] = j;
  std::vector<std::string> values;
  if (n->opcode == Opcode::kTopK) {
    ASSIGN_OR_RETURN(std::string v, Value(n->operands[0], at));
    values = {v, Temp("int", "int(" + j + ")")};
    return values;
  }
  for (const Instruction* o : n->operands) {
    ASSIGN_OR_RETURN(std::string v, Value(o, at));
    values.push_back(v);
  }
  return values;
}

StatusOr<std::vector<KernelSource>> EmitSortPermutation(const Instruction& sort, const Shape& permutation,
                                                        const BufferLayoutFn& buffer_layout, const TargetFeatures& target) {
  ASSIGN_OR_RETURN(SortGeometry g, GeometryOf(sort));
  FusedEmitter local_emitter(target, buffer_layout), step_emitter(target, buffer_layout);
  ASSIGN_OR_RETURN(KernelSource local, local_emitter.EmitSortStep(sort, permutation, true));
  ASSIGN_OR_RETURN(const int64_t block_size, SortBlockSize(sort, target));
  const uint32_t block = static_cast<uint32_t>(block_size);
  std::vector<KernelSource> kernels;
  if (g.lines == 0 || g.length == 0) return kernels;
  // The whole network up to the block size in one pass, from the identity.
  local.push_constants = {2, block, 1, 1};
  kernels.push_back(local);
  if (g.padded > block) {
    ASSIGN_OR_RETURN(KernelSource step, step_emitter.EmitSortStep(sort, permutation, false));
    for (uint64_t k = 2ull * block; k <= static_cast<uint64_t>(g.padded); k <<= 1) {
      // Steps wider than a block go through memory; the rest of the stage in shared memory.
      for (uint64_t j = k / 2; j >= block; j >>= 1) {
        step.push_constants = {static_cast<uint32_t>(k), 0, static_cast<uint32_t>(j), 0};
        kernels.push_back(step);
      }
      local.push_constants = {static_cast<uint32_t>(k), static_cast<uint32_t>(k), block / 2, 0};
      kernels.push_back(local);
    }
  }
  return kernels;
}

}  // namespace vkxla
