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
// invocations take consecutive result elements ("columns"). 32-bit operands
// are read a vector at a time; CPU drivers get one lane per row, and column
// lanes that walk the rows in lockstep (see ARCHITECTURE.md for figures).
// Long single-operand column reductions instead split into passes over
// blocks of rows (reduce_partials_emitter.cc); this file emits the first.
#include "codegen/fused_emitter.h"

#include "codegen/glsl_index_arithmetic.h"
#include "codegen/glsl_types.h"
#include "ir/layout_index.h"
#include "ops/op_traits.h"
#include "ops/reduction_shapes.h"

namespace vkxla {
namespace {

// Whether `c` is one commutative op of its two parameters.
bool IsCommutativeBinary(const Computation& c) {
  const Instruction* r = c.root();
  const auto params = c.parameters();
  if (params.size() != 2 || r->operands.size() != 2 || !IsAssociativeAndCommutative(r->opcode)) return false;
  return (r->operands[0] == params[0] && r->operands[1] == params[1]) ||
         (r->operands[0] == params[1] && r->operands[1] == params[0]);
}

}  // namespace

Layout FusedEmitter::LeafLayout(const Instruction* n) const {
  // Through elementwise ops to the buffer that feeds them.
  while (n != root_ && !buffer_layout_(n) && (IsElementwise(n->opcode) || n->opcode == Opcode::kCopy) &&
         !n->operands.empty() && n->operands[0]->shape.IsArray() && n->operands[0]->shape.rank() == n->shape.rank())
    n = n->operands[0];
  return LayoutOf(n);
}

int64_t FusedEmitter::UnitStrideDim(const Instruction* n) const {
  if (n->shape.rank() == 0) return -1;
  const Layout layout = LeafLayout(n);
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

StatusOr<FusedEmitter::ReduceGeometry> FusedEmitter::GeometryOfReduce(const Instruction& reduce, const Shape& out) {
  ASSIGN_OR_RETURN(ReducePlan plan, PlanReduce(reduce));
  ReduceGeometry g;
  const Shape& xs = reduce.operands[0]->shape;
  for (int64_t d : plan.reduced) g.K *= xs.dim(d);
  for (int64_t d : plan.kept) g.outputs *= xs.dim(d);
  g.unit = UnitStrideDim(reduce.operands[0]);
  g.rows = g.unit < 0 || std::find(plan.reduced.begin(), plan.reduced.end(), g.unit) != plan.reduced.end();
  // Whole-vector reads where the operands are 32-bit and their unit-stride
  // dim runs 4 at a time: along a reduced row, or across 4 result elements.
  bool all32 = true;
  for (int64_t i = 0; i < plan.arity; ++i) {
    const ElementType ti = reduce.operands[i]->shape.element_type();
    all32 = all32 && BitWidth(ti) == 32 && !IsComplex(ti);
  }
  g.x_layout = LeafLayout(reduce.operands[0]);
  const bool x_plain = all32 && g.unit >= 0 && g.x_layout.tiles.empty() && !g.x_layout.minor_to_major.empty() &&
                       g.x_layout.minor_to_major[0] == g.unit && xs.dim(g.unit) % 4 == 0;
  g.row_vectors = g.rows && x_plain && plan.reduced.size() == 1;
  int64_t out_unit_pos = -1;  // the result dim that is the operand's unit dim
  for (size_t k = 0; k < plan.kept.size(); ++k)
    if (plan.kept[k] == g.unit) out_unit_pos = static_cast<int64_t>(k);
  const Layout result_layout = out.layout_or_default();
  ASSIGN_OR_RETURN(const int result_bits, ElementStorageBits(out.element_type(), result_layout));
  ASSIGN_OR_RETURN(TiledIndexMap out_map, TiledIndexMap::Create(out));
  g.column_vectors = !g.rows && x_plain && result_bits == 32 && WordsPerElement(out.element_type()) == 1 &&
                     !out_map.is_tiled() && !out_map.has_padding() && out_unit_pos >= 0 &&
                     !result_layout.minor_to_major.empty() && result_layout.minor_to_major[0] == out_unit_pos;
  return g;
}

StatusOr<KernelSource> FusedEmitter::EmitReduce(const Instruction& root, const Shape& out) {
  const Instruction* reduce = root.opcode == Opcode::kReduce ? &root : root.operands[0];
  const int64_t result = root.opcode == Opcode::kReduce ? 0 : root.tuple_index;
  if (const Instruction* partials = planned_buffer_ && !split_ ? planned_buffer_(reduce) : nullptr)
    return EmitReduceFromPartials(root, *reduce, out, partials);
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
  const int result_bits = out_bits_;
  const Layout result_layout = out_layout_;
  const Shape result_shape = out_;

  const Shape& xs = reduce->operands[0]->shape;
  ASSIGN_OR_RETURN(const ReduceGeometry geo, GeometryOfReduce(*reduce, out));
  const int64_t K = geo.K, outputs = geo.outputs, unit = geo.unit;
  const bool rows = geo.rows, row_vectors = geo.row_vectors, column_vectors = geo.column_vectors;
  const Layout& x_layout = geo.x_layout;
  const bool commutative = n == 1 && IsCommutativeBinary(*f);
  // G results per slot (4 for column vectors), L lanes per slot, P slots.
  // V result vectors per lane. 4 (a cache line of each row) was measured
  // on lavapipe and is slower than 1 (0.26 against 0.45 of the stream kernel).
  const int64_t V = column_vectors ? 1 : 0;
  const int64_t G = column_vectors ? 4 * V : 1;
  const int64_t steps = row_vectors ? K / 4 : K;  // what one lane's loop runs over
  int64_t L = 1;
  if (rows) {
    L = std::min<int64_t>(256 / E, PowerOfTwoAtLeast(steps));
    // A CPU driver streams memory best with one lane per row; lanes share
    // a row only when there are too few rows to keep the cores busy
    // (f32[4096,4096] row sums: 0.95 of the stream kernel at L = 1 against
    // 0.2 at 64 on lavapipe).
    if (target_.cpu) L = std::min<int64_t>(L, PowerOfTwoAtLeast(std::max<int64_t>(1, 4096 / std::max<int64_t>(outputs, 1))));
  } else {
    const int64_t P = std::clamp<int64_t>(PowerOfTwoAtLeast(outputs / G), column_vectors ? 1 : E, 64);
    L = std::min<int64_t>(256 / P, PowerOfTwoAtLeast(steps));
  }
  L = std::max<int64_t>(L, 1);
  // Column vectors on a CPU driver: one lane per result vector, and the
  // workgroup walks the rows in step (a barrier every 16 rows), so its
  // invocations read each row as one contiguous run.
  const bool lockstep = column_vectors && target_.cpu && !split_;
  if (lockstep || split_) L = 1;
  if (split_ && !column_vectors) return Internal(reduce->Describe() + ": a split reduce must read its operand as columns");
  const int64_t P = 256 / L;
  const int64_t slots = column_vectors ? (vectors + V - 1) / V : physical;
  // A split reduce's first pass: an invocation per (block of rows, result vector).
  const int64_t blocks = split_ ? split_->parts[0] : 1;
  const int64_t groups = (slots * blocks + P - 1) / P;
  const int64_t chunk = (steps + L - 1) / L;
  const bool strided = rows && commutative;

  std::vector<GlslType> types;
  for (int64_t i = 0; i < n; ++i) {
    const ElementType ti = reduce->operands[i]->shape.element_type();
    RETURN_IF_ERROR(Use(ti, *reduce));
    ASSIGN_OR_RETURN(GlslType g, GlslTypeFor(ti, target_, reduce->Describe()));
    types.push_back(g);
  }
  GlslIndexArithmetic a;
  std::string valid;
  const std::vector<std::string> out_index =
      out_map.FromPhysical<GlslIndexArithmetic>(column_vectors ? "(p * " + U(4 * V) + ")" : "p", a, valid);

  // The fold over this lane's steps: the first step sets the accumulators
  // (so no identity is needed), later ones combine into them. A step is one
  // element, or one vector of 4 (along the row, or across G = 4 results).
  std::string fold = split_ ? "  uint p = inv % " + U(slots) + ", block = inv / " + U(slots) + ";\n  if (block >= " +
                                 U(blocks) + ") return;\n"
                           : "  uint p = wg * " + U(P) + " + slot;\n";
  fold += "  bool live = p < " + U(slots) + (valid == "true" ? "" : " && (" + valid + ")") + ";\n";
  if (lockstep) fold += "  p = min(p, " + U(slots - 1) + ");\n";  // every lane loads something in bounds
  std::vector<std::string> base_at(xs.rank());
  for (size_t k = 0; k < plan.kept.size(); ++k) {
    fold += "  uint i" + std::to_string(k) + " = " + out_index[k] + ";\n";
    base_at[plan.kept[k]] = "i" + std::to_string(k);
  }
  auto acc_name = [](int64_t i, int64_t g) { return "acc" + std::to_string(i) + "_" + std::to_string(g); };
  for (int64_t g = 0; g < G; ++g)
    for (int64_t i = 0; i < n; ++i) fold += "  " + types[i].compute + " " + acc_name(i, g) + ";\n";
  fold += strided  ? "  uint k0 = lane, k1 = " + U(steps) + ", dk = " + U(L) + ";\n"
          : split_ ? "  uint k0 = block * " + U(kReduceBlockRows) + ", k1 = min(" + U(steps) + ", k0 + " + U(kReduceBlockRows) + "), dk = 1u;\n"
                   : "  uint k0 = lane * " + U(chunk) + ", k1 = min(" + U(steps) + ", k0 + " + U(chunk) + "), dk = 1u;\n";
  fold += "  bool has = live && k0 < k1;\n";
  // One step at reduced position `k` (a GLSL variable); `first` assigns.
  auto step = [&](const std::string& k, bool first) -> StatusOr<std::string> {
    body_.clear();
    memo_.clear();
    vector_loads_.clear();
    std::vector<std::string> at = base_at;
    std::string vector_index;
    if (!row_vectors) {
      int64_t stride = 1;
      for (size_t r = plan.reduced.size(); r-- > 0;) {
        const int64_t d = plan.reduced[r];
        std::string c = a.DivConstant(k, stride);
        if (r > 0) c = a.ModConstant(c, xs.dim(d));
        at[d] = Temp("uint", c);
        stride *= xs.dim(d);
      }
    }
    if (row_vectors) {
      std::vector<std::string> start = at;
      start[unit] = "0u";
      ASSIGN_OR_RETURN(std::string base, PhysicalIndex(xs, x_layout, start));
      vector_index = "((" + base + ") >> 2u) + " + k;
    } else if (column_vectors) {
      ASSIGN_OR_RETURN(std::string first_element, PhysicalIndex(xs, x_layout, at));
      vector_index = "(" + first_element + ") >> 2u";
    }
    const std::string prelude = body_;
    std::string code;
    // Blocks of 4 elements (one vector each: V of them for column vectors)
    // or a single element.
    const int64_t blocks = column_vectors ? V : 1, elements = row_vectors || column_vectors ? 4 : 1;
    for (int64_t q = 0; q < blocks; ++q) {
      body_.clear();
      memo_.clear();
      vector_loads_.clear();
      for (int64_t e = 0; e < elements; ++e) {
        std::vector<std::string> idx = at;
        if (row_vectors) idx[unit] = Temp("uint", k + " * 4u + " + U(e));
        if (column_vectors) idx[unit] = Temp("uint", base_at[unit] + " + " + U(4 * q + e));
        if (elements == 4) {
          // Buffers placed like the operand are word e of this block's vector.
          out_ = Shape(xs.element_type(), xs.dims());
          out_layout_ = x_layout;
          out_bits_ = 32;
          root_index_ = idx;
          body_ += "    ew = " + U(e) + ";\n";
        }
        std::vector<std::string> x;
        for (int64_t i = 0; i < n; ++i) {
          ASSIGN_OR_RETURN(std::string v, Value(reduce->operands[i], idx));
          x.push_back(v);
        }
        const int64_t g = column_vectors ? 4 * q + e : 0;
        std::vector<std::string> accs;
        for (int64_t i = 0; i < n; ++i) accs.push_back(acc_name(i, g));
        if (first && (column_vectors || e == 0)) {
          for (int64_t i = 0; i < n; ++i) body_ += "    " + accs[i] + " = " + x[i] + ";\n";
        } else {
          std::vector<std::string> args = accs;
          args.insert(args.end(), x.begin(), x.end());
          ASSIGN_OR_RETURN(std::vector<std::string> next, Apply(*f, args));
          RETURN_IF_ERROR(Assign(reduce, accs, next));
        }
      }
      out_ = result_shape;
      out_layout_ = result_layout;
      out_bits_ = result_bits;
      root_index_ = {"<no vector loads>"};
      std::string loads;
      for (const std::string& b : vector_loads_)
        loads += "    uvec4 " + b + "_v = " + ReadVector(b, vector_index + " + " + U(q)) + ";\n";
      vector_loads_.clear();
      code += "    {\n" + loads + "    uint ew = 0u, es = 0u;\n" + body_ + "    }\n";
    }
    return prelude + code;
  };
  ASSIGN_OR_RETURN(std::string first_step, step("k0", true));
  ASSIGN_OR_RETURN(std::string next_step, step("k", false));
  if (split_) {
    // The block's rows in a loop of constant length (which drivers unroll:
    // each load then walks memory at a fixed stride across invocations).
    // The partials go straight to memory: block-major, then result order.
    fold += "  {\n" + first_step + "  }\n  for (uint r = 1u; r < " + U(kReduceBlockRows) + "; ++r) {\n    uint k = k0 + r;\n";
    fold += (steps % kReduceBlockRows == 0 ? "    {\n" : "    if (k < k1) {\n") + next_step + "    }\n  }\n";
    std::string words;
    for (int64_t g = 0; g < 4; ++g) words += (g ? ", " : "") + EncodeToBits(t, acc_name(0, g));
    fold += "  " + WriteVector("out0", "block * " + U(slots) + " + p", "uvec4(" + words + ")") + "\n";
    KernelSource k;
    k.name = "reduce_blocks_" + root.name;
    k.inputs = inputs_;
    k.output = split_->partials;
    k.local_size = 256;
    k.invocations = static_cast<uint64_t>(slots * blocks);
    k.glsl = Prologue(256, k.name) + fold + "}\n";
    return k;
  }
  if (lockstep) {
    fold += "  {\n" + first_step + "  }\n  for (uint k = 1u; k < " + U(steps) +
            "; ++k) {\n    if ((k & 15u) == 0u) barrier();\n" + next_step + "  }\n";
  } else {
    fold += "  if (has) {\n  {\n" + first_step + "  }\n  for (uint k = k0 + dk; k < k1; k += dk) {\n" + next_step + "  }\n  }\n";
  }
  // The tree: at step s, lane l (a multiple of 2s) takes in lane l + s.
  const std::string me = "lid * " + U(G) + " + g", other = "other * " + U(G) + " + g";
  std::string tree;
  for (int64_t g = 0; g < G; ++g) {
    const std::string at = "lid * " + U(G) + " + " + U(g);
    for (int64_t i = 0; i < n; ++i) tree += "  part" + std::to_string(i) + "[" + at + "] = " + acc_name(i, g) + ";\n";
    tree += "  part_has[" + at + "] = has;\n";
  }
  tree += "  for (uint s = 1u; s < " + U(L) + "; s <<= 1u) {\n    barrier();\n";
  tree += "    if ((lane & (2u * s - 1u)) == 0u && lane + s < " + U(L) + ") {\n";
  tree += "    uint other = " + std::string(rows ? "lid + s" : "lid + s * " + U(P)) + ";\n";
  tree += "    for (uint g = 0u; g < " + U(G) + "; ++g) {\n";
  tree += "    if (part_has[" + other + "]) {\n    if (part_has[" + me + "]) {\n";
  body_.clear();
  memo_.clear();
  {
    std::vector<std::string> args, mine;
    for (int64_t i = 0; i < n; ++i) args.push_back(Temp(types[i].compute, "part" + std::to_string(i) + "[" + me + "]"));
    for (int64_t i = 0; i < n; ++i) args.push_back(Temp(types[i].compute, "part" + std::to_string(i) + "[" + other + "]"));
    ASSIGN_OR_RETURN(std::vector<std::string> next, Apply(*f, args));
    for (int64_t i = 0; i < n; ++i) mine.push_back("part" + std::to_string(i) + "[" + me + "]");
    RETURN_IF_ERROR(Assign(reduce, mine, next));
  }
  tree += body_ + "    } else {\n";
  for (int64_t i = 0; i < n; ++i)
    tree += "    part" + std::to_string(i) + "[" + me + "] = part" + std::to_string(i) + "[" + other + "];\n";
  tree += "    }\n    part_has[" + me + "] = true;\n    }\n    }\n    }\n  }\n  barrier();\n";

  // The stores: each of the first P / (E / G) invocations writes one vector.
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
  const int64_t writers = P * G / E;
  std::string store = "  if (lid < " + U(writers) + ") {\n  uint vec = wg * " + U(writers) + " + lid;\n";
  store += "  if (vec < " + U(vectors) + ") {\n  uvec4 outv = uvec4(0u);\n";
  store += "  for (uint e = 0u; e < " + U(E) + "; ++e) {\n" + VectorSlot(static_cast<int>(E));
  // The partial of result element e of this vector: slot-major, G per slot.
  const std::string element = "(lid * " + U(E) + " + e)";
  std::string src = column_vectors ? "lid * 4u + e" : rows ? element + " * " + U(L) : element;
  store += "    uint src = " + src + ";\n";
  store += body_ + StoreElement(t, res[result]) + "  }\n  " + WriteVector("out0", "vec", "outv") + "\n  }\n  }\n";

  for (int64_t i = 0; i < n; ++i)
    shared_ += "shared " + types[i].compute + " part" + std::to_string(i) + "[" + U(256 * G) + "];\n";
  shared_ += "shared bool part_has[" + U(256 * G) + "];\n";
  KernelSource k;
  k.name = "reduce_" + root.name;
  k.inputs = inputs_;
  k.output = out;
  k.local_size = 256;
  k.invocations = static_cast<uint64_t>(groups) * 256;
  std::string main = Prologue(256, k.name);
  main += "  uint lid = gl_LocalInvocationID.x;\n  uint wg = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;\n";
  main += "  if (wg >= " + U(groups) + ") return;\n";
  main += rows ? "  uint slot = lid / " + U(L) + ", lane = lid % " + U(L) + ";\n"
               : "  uint slot = lid % " + U(P) + ", lane = lid / " + U(P) + ";\n";
  main += fold + tree + store + "}\n";
  k.glsl = std::move(main);
  return k;
}

}  // namespace vkxla
