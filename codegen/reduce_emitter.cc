// Reduce as a tree in each workgroup. A workgroup of 256 invocations owns P
// consecutive physical result elements (whole output vectors) and gives
// each L = 256 / P lanes. Each lane folds its share of the reduced
// elements, the partials meet in shared memory in log2(L) steps, and the
// init value is applied once, on the left, at the end. Lanes take
// contiguous runs of the reduced index and the tree joins neighbours, so
// the order of the elements is kept: any associative computation gives the
// sequential answer, commutative or not. Only a known commutative op reading
// along its rows strides its lanes (so consecutive lanes read consecutive
// elements). Where the operand's unit-stride dim is reduced, the lanes of
// one result element are consecutive ("rows"); otherwise consecutive
// invocations take consecutive result elements ("columns").
#include "codegen/fused_emitter.h"

#include "codegen/glsl_index_arithmetic.h"
#include "codegen/glsl_types.h"
#include "ir/layout_index.h"
#include "ops/op_traits.h"
#include "ops/reduction_shapes.h"

namespace vkxla {
namespace {

int64_t PowerOfTwoAtLeast(int64_t x) {
  int64_t p = 1;
  while (p < x) p <<= 1;
  return p;
}

// Whether `c` is one commutative op of its two parameters.
bool IsCommutativeBinary(const Computation& c) {
  const Instruction* r = c.root();
  if (c.parameters().size() != 2 || r->operands.size() != 2) return false;
  switch (r->opcode) {
    case Opcode::kAdd: case Opcode::kMultiply: case Opcode::kMaximum: case Opcode::kMinimum:
    case Opcode::kAnd: case Opcode::kOr: case Opcode::kXor:
      break;
    default:
      return false;
  }
  const auto params = c.parameters();
  return (r->operands[0] == params[0] && r->operands[1] == params[1]) ||
         (r->operands[0] == params[1] && r->operands[1] == params[0]);
}

}  // namespace

int64_t FusedEmitter::UnitStrideDim(const Instruction* n) const {
  // Through elementwise ops to the buffer that feeds them.
  while (n != root_ && !buffer_layout_(n) && (IsElementwise(n->opcode) || n->opcode == Opcode::kCopy) &&
         !n->operands.empty() && n->operands[0]->shape.IsArray() && n->operands[0]->shape.rank() == n->shape.rank())
    n = n->operands[0];
  const Layout layout = LayoutOf(n);
  if (n->shape.rank() == 0) return -1;
  return layout.minor_to_major.empty() ? n->shape.rank() - 1 : layout.minor_to_major[0];
}

std::string FusedEmitter::StoreElement(ElementType t, const std::string& v) {
  const int per_word = out_bits_ >= 32 ? 1 : 32 / out_bits_;
  if (per_word > 1) return "      outv[ew] |= " + EncodeToBits(t, v) + " << " + SlotBitOffset(out_bits_, "es") + ";\n";
  if (WordsPerElement(t) == 1) return "      outv[ew] = " + EncodeToBits(t, v) + ";\n";
  if (t == ElementType::kC128) return "      outv = uvec4(unpackDouble2x32(" + v + ".x), unpackDouble2x32(" + v + ".y));\n";
  return "      { uvec2 bits = " + Bits64(t, v) + "; outv[ew] = bits.x; outv[ew + 1u] = bits.y; }\n";
}

std::string FusedEmitter::VectorSlot(int per_vector) const {
  const int per_word = out_bits_ >= 32 ? 1 : 32 / out_bits_, words = WordsPerElement(out_.element_type());
  (void)per_vector;
  std::string s = "    uint ew = " + (per_word > 1 ? std::string("e >> ") + U(per_word == 2 ? 1 : per_word == 4 ? 2 : 3)
                                                  : words > 1 ? "e * " + U(words) : std::string("e")) + ";\n";
  return s + "    uint es = " + (per_word > 1 ? "e & " + U(per_word - 1) : std::string("0u")) + ";\n";
}

StatusOr<KernelSource> FusedEmitter::EmitReduce(const Instruction& root, const Shape& out) {
  const Instruction* reduce = root.opcode == Opcode::kReduce ? &root : root.operands[0];
  const int64_t result = root.opcode == Opcode::kReduce ? 0 : root.tuple_index;
  ASSIGN_OR_RETURN(ReducePlan plan, PlanReduce(*reduce));
  const int64_t n = plan.arity;
  const Computation* f = reduce->called_computations[0].second;
  root_ = &root;
  out_ = out;
  out_layout_ = out.layout_or_default();
  root_index_ = {"<no vector loads>"};
  const ElementType t = out.element_type();
  RETURN_IF_ERROR(Use(t, root));
  ASSIGN_OR_RETURN(out_bits_, ElementStorageBits(t, out_layout_));
  ASSIGN_OR_RETURN(TiledIndexMap out_map, TiledIndexMap::Create(out));
  const int64_t physical = out_map.physical_element_count();
  const int per_word = out_bits_ >= 32 ? 1 : 32 / out_bits_;
  const int64_t E = per_word * 4 / WordsPerElement(t);
  const int64_t vectors = (physical + E - 1) / E;

  const Shape& xs = reduce->operands[0]->shape;
  int64_t K = 1, outputs = 1;
  for (int64_t d : plan.reduced) K *= xs.dim(d);
  for (int64_t d : plan.kept) outputs *= xs.dim(d);
  const int64_t unit = UnitStrideDim(reduce->operands[0]);
  const bool rows = unit < 0 || std::find(plan.reduced.begin(), plan.reduced.end(), unit) != plan.reduced.end();
  const bool strided = rows && n == 1 && IsCommutativeBinary(*f);
  int64_t L = 1;
  if (rows) {
    L = std::min<int64_t>(256 / E, PowerOfTwoAtLeast(K));
  } else {
    const int64_t P = std::clamp<int64_t>(PowerOfTwoAtLeast(outputs), E, 64);
    L = std::min<int64_t>(256 / P, PowerOfTwoAtLeast(K));
  }
  L = std::max<int64_t>(L, 1);
  const int64_t P = 256 / L;
  const int64_t groups = (physical + P - 1) / P;
  const int64_t chunk = (K + L - 1) / L;

  std::vector<GlslType> types;
  for (int64_t i = 0; i < n; ++i) {
    const ElementType ti = reduce->operands[i]->shape.element_type();
    RETURN_IF_ERROR(Use(ti, *reduce));
    ASSIGN_OR_RETURN(GlslType g, GlslTypeFor(ti, target_, reduce->Describe()));
    types.push_back(g);
  }
  GlslIndexArithmetic a;
  std::string valid;
  const std::vector<std::string> out_index = out_map.FromPhysical<GlslIndexArithmetic>("p", a, valid);

  // The fold over this lane's elements.
  std::string fold = "  uint p = wg * " + U(P) + " + slot;\n";
  fold += "  bool live = p < " + U(physical) + (valid == "true" ? "" : " && (" + valid + ")") + ";\n";
  std::vector<std::string> at(xs.rank());
  for (size_t k = 0; k < plan.kept.size(); ++k) {
    fold += "  uint i" + std::to_string(k) + " = " + out_index[k] + ";\n";
    at[plan.kept[k]] = "i" + std::to_string(k);
  }
  std::vector<std::string> acc;
  for (int64_t i = 0; i < n; ++i) {
    acc.push_back("acc" + std::to_string(i));
    fold += "  " + types[i].compute + " acc" + std::to_string(i) + ";\n";
  }
  fold += "  bool has = false;\n  if (live) {\n";
  fold += strided ? "  for (uint k = lane; k < " + U(K) + "; k += " + U(L) + ") {\n"
                  : "  for (uint k = lane * " + U(chunk) + "; k < min(" + U(K) + ", lane * " + U(chunk) + " + " + U(chunk) +
                        "); ++k) {\n";
  {
    int64_t stride = 1;
    for (size_t k = plan.reduced.size(); k-- > 0;) {
      const int64_t d = plan.reduced[k];
      std::string c = a.DivConstant("k", stride);
      if (k > 0) c = a.ModConstant(c, xs.dim(d));
      at[d] = c;
      stride *= xs.dim(d);
    }
  }
  body_.clear();
  memo_.clear();
  std::vector<std::string> x;
  for (int64_t i = 0; i < n; ++i) {
    ASSIGN_OR_RETURN(std::string v, Value(reduce->operands[i], at));
    x.push_back(v);
  }
  body_ += "    if (has) {\n";
  {
    std::vector<std::string> args = acc;
    args.insert(args.end(), x.begin(), x.end());
    ASSIGN_OR_RETURN(std::vector<std::string> next, Apply(*f, args));
    RETURN_IF_ERROR(Assign(reduce, acc, next));
  }
  body_ += "    } else {\n";
  for (int64_t i = 0; i < n; ++i) body_ += "    " + acc[i] + " = " + x[i] + ";\n";
  body_ += "    }\n    has = true;\n";
  fold += body_ + "  }\n  }\n";

  // The tree: at step s, lane l (a multiple of 2s) takes in lane l + s.
  std::string tree;
  for (int64_t i = 0; i < n; ++i) tree += "  part" + std::to_string(i) + "[lid] = acc" + std::to_string(i) + ";\n";
  tree += "  part_has[lid] = has;\n";
  tree += "  for (uint s = 1u; s < " + U(L) + "; s <<= 1u) {\n    barrier();\n";
  tree += "    if ((lane & (2u * s - 1u)) == 0u && lane + s < " + U(L) + ") {\n";
  tree += "    uint other = " + std::string(rows ? "lid + s" : "lid + s * " + U(P)) + ";\n";
  tree += "    if (part_has[other]) {\n    if (part_has[lid]) {\n";
  body_.clear();
  memo_.clear();
  {
    std::vector<std::string> args, mine;
    for (int64_t i = 0; i < n; ++i) args.push_back(Temp(types[i].compute, "part" + std::to_string(i) + "[lid]"));
    for (int64_t i = 0; i < n; ++i) args.push_back(Temp(types[i].compute, "part" + std::to_string(i) + "[other]"));
    ASSIGN_OR_RETURN(std::vector<std::string> next, Apply(*f, args));
    for (int64_t i = 0; i < n; ++i) mine.push_back("part" + std::to_string(i) + "[lid]");
    RETURN_IF_ERROR(Assign(reduce, mine, next));
  }
  tree += body_ + "    } else {\n";
  for (int64_t i = 0; i < n; ++i) tree += "    part" + std::to_string(i) + "[lid] = part" + std::to_string(i) + "[other];\n";
  tree += "    }\n    part_has[lid] = true;\n    }\n    }\n  }\n  barrier();\n";

  // The stores: invocation v < P / E writes the workgroup's vector v.
  body_.clear();
  memo_.clear();
  std::vector<std::string> res;
  for (int64_t i = 0; i < n; ++i) {
    ASSIGN_OR_RETURN(std::string init, Value(reduce->operands[n + i], {}));
    res.push_back(Temp(types[i].compute, init));
  }
  body_ += "    if (part_has[src]) {\n";
  {
    std::vector<std::string> args = res;
    for (int64_t i = 0; i < n; ++i) args.push_back(Temp(types[i].compute, "part" + std::to_string(i) + "[src]"));
    ASSIGN_OR_RETURN(std::vector<std::string> next, Apply(*f, args));
    RETURN_IF_ERROR(Assign(reduce, res, next));
  }
  body_ += "    }\n";
  std::string store = "  if (lid < " + U(P / E) + ") {\n  uint vec = wg * " + U(P / E) + " + lid;\n";
  store += "  if (vec < " + U(vectors) + ") {\n  uvec4 outv = uvec4(0u);\n";
  store += "  for (uint e = 0u; e < " + U(E) + "; ++e) {\n" + VectorSlot(static_cast<int>(E));
  store += "    uint src = " + std::string(rows ? "(lid * " + U(E) + " + e) * " + U(L) : "lid * " + U(E) + " + e") + ";\n";
  store += body_ + StoreElement(t, res[result]) + "  }\n  out0.v[vec] = outv;\n  }\n  }\n";

  for (int64_t i = 0; i < n; ++i)
    shared_ += "shared " + types[i].compute + " part" + std::to_string(i) + "[256];\n";
  shared_ += "shared bool part_has[256];\n";
  KernelSource k;
  k.name = "reduce_" + root.name;
  k.inputs = inputs_;
  k.output = out;
  k.local_size = 256;
  k.invocations = static_cast<uint64_t>(groups) * 256;
  std::string src = Prologue(256, k.name);
  src += "  uint lid = gl_LocalInvocationID.x;\n  uint wg = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;\n";
  src += "  if (wg >= " + U(groups) + ") return;\n";
  src += rows ? "  uint slot = lid / " + U(L) + ", lane = lid % " + U(L) + ";\n"
              : "  uint slot = lid % " + U(P) + ", lane = lid / " + U(P) + ";\n";
  src += fold + tree + store + "}\n";
  k.glsl = std::move(src);
  return k;
}

}  // namespace vkxla
