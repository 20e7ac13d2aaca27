// Scan, one kernel per result. A scan that is one associative operator
// (inputs, carries and outputs pair up and output i is carry i) runs as a
// parallel prefix: each line's chunks of up to 256 elements are scanned in
// shared memory (Hillis-Steele, earlier elements on the left) and joined
// to the running carry. Any other scan is sequential along its dimension,
// one invocation per line. Results are stored element by element (an
// invocation owns a line, not whole output vectors), with atomics where
// elements share a word.
#include "codegen/fused_emitter.h"

#include "codegen/glsl_index_arithmetic.h"
#include "codegen/glsl_types.h"
#include "ir/layout_index.h"
#include "ops/op_traits.h"
#include "ops/reduction_shapes.h"

namespace vkxla {
namespace {

// Whether every instruction of `c` acts element by element, so that it can
// be applied to slices one element at a time.
bool IsElementwiseComputation(const Computation& c, const std::vector<int64_t>& slice) {
  for (const auto& inst : c.instructions()) {
    const Shape& s = inst->shape;
    if (s.IsArray() && s.rank() != 0 && s.dims() != slice) return false;
    if (inst->opcode == Opcode::kParameter || inst->opcode == Opcode::kTuple) continue;
    if (inst->opcode == Opcode::kConstant && s.IsArray() && s.element_count() == 1) continue;
    if (inst->opcode == Opcode::kBroadcast && inst->operands[0]->shape.rank() == 0) continue;
    if (!IsElementwise(inst->opcode)) return false;
  }
  return true;
}

// Whether each carry i is add/multiply/max/min/and/or/xor of input i and
// carry i (parameters i and m + i): associative without being told.
bool IsKnownAssociative(const Computation& c, int64_t carries) {
  const Instruction* r = c.root();
  const auto params = c.parameters();
  if (r->opcode != Opcode::kTuple) return false;
  for (int64_t i = 0; i < carries; ++i) {
    const Instruction* op = r->operands[r->operands.size() - carries + i];
    if (!IsAssociativeAndCommutative(op->opcode) || op->operands.size() != 2) return false;
    const Instruction* x = params[i];
    const Instruction* carry = params[carries + i];
    if (!((op->operands[0] == x && op->operands[1] == carry) || (op->operands[0] == carry && op->operands[1] == x)))
      return false;
  }
  return true;
}

}  // namespace

StatusOr<std::string> FusedEmitter::StoreScattered(ElementType t, const std::string& p, const std::string& v) {
  const int words = WordsPerElement(t);
  if (out_bits_ >= 32) {
    if (t == ElementType::kC128)
      return "    { uint w = " + p + " * 4u; out0.v[w >> 2u] = uvec4(unpackDouble2x32(" + v + ".x), unpackDouble2x32(" + v +
             ".y)); }\n";
    if (words == 1) return "    W(out0, " + p + ") = " + EncodeToBits(t, v) + ";\n";
    return "    { uint w = " + p + " * 2u; uvec2 bits = " + Bits64(t, v) + "; W(out0, w) = bits.x; W(out0, w + 1u) = bits.y; }\n";
  }
  // Elements share words with other invocations' elements: clear the slot
  // and set it atomically.
  const int per_word = 32 / out_bits_;
  Helper("store_slot", "void store_slot(uint w, uint shift, uint mask, uint bits) {\n"
                       "  switch (w & 3u) {\n"
                       "    case 0u: atomicAnd(out0.v[w >> 2u].x, ~(mask << shift)); atomicOr(out0.v[w >> 2u].x, (bits & mask) << shift); break;\n"
                       "    case 1u: atomicAnd(out0.v[w >> 2u].y, ~(mask << shift)); atomicOr(out0.v[w >> 2u].y, (bits & mask) << shift); break;\n"
                       "    case 2u: atomicAnd(out0.v[w >> 2u].z, ~(mask << shift)); atomicOr(out0.v[w >> 2u].z, (bits & mask) << shift); break;\n"
                       "    default: atomicAnd(out0.v[w >> 2u].w, ~(mask << shift)); atomicOr(out0.v[w >> 2u].w, (bits & mask) << shift); break;\n"
                       "  }\n}\n");
  const std::string slot = "(" + p + ") % " + U(per_word);
  return "    store_slot((" + p + ") / " + U(per_word) + ", " + SlotBitOffset(out_bits_, slot) + ", " +
         U((int64_t{1} << out_bits_) - 1) + ", " + EncodeToBits(t, v) + ");\n";
}

StatusOr<KernelSource> FusedEmitter::EmitScan(const Instruction& root, const Shape& out) {
  const Instruction* scan = root.opcode == Opcode::kScan ? &root : root.operands[0];
  const int64_t result = root.opcode == Opcode::kScan ? 0 : root.tuple_index;
  ASSIGN_OR_RETURN(ScanPlan plan, PlanScan(*scan));
  const Computation* f = scan->called_computations[0].second;
  root_ = &root;
  out_ = out;
  out_layout_ = out.layout_or_default();
  root_index_ = {"<no vector loads>"};
  out_readable_ = true;
  const ElementType t = out.element_type();
  RETURN_IF_ERROR(Use(t, root));
  ASSIGN_OR_RETURN(out_bits_, ElementStorageBits(t, out_layout_));
  const Shape& xs = scan->operands[0]->shape;
  const int64_t dim = plan.dimension, length = xs.dim(dim);
  std::vector<int64_t> slice = xs.dims();
  slice.erase(slice.begin() + dim);
  if (!IsElementwiseComputation(*f, slice))
    return Unimplemented("scan " + scan->Describe() + ": the scan computation %" + f->name() +
                         " works on whole slices; on Vulkan it must act element by element");
  int64_t lines = 1;
  for (int64_t d : slice) lines *= d;
  const bool is_output = result < plan.outputs;
  std::vector<GlslType> carry_types;
  for (int64_t i = 0; i < plan.carries; ++i) {
    const ElementType ci = scan->operands[plan.inputs + i]->shape.element_type();
    RETURN_IF_ERROR(Use(ci, *scan));
    ASSIGN_OR_RETURN(GlslType g, GlslTypeFor(ci, target_, scan->Describe()));
    carry_types.push_back(g);
  }
  const bool parallel = plan.prefix_form && plan.associative.value_or(IsKnownAssociative(*f, plan.carries));
  GlslIndexArithmetic a;
  // The line's index in the slice, and the full index at scan position `at`.
  auto line_index = [&](const std::string& line) {
    std::vector<std::string> idx(slice.size());
    int64_t stride = 1;
    for (size_t d = slice.size(); d-- > 0;) {
      idx[d] = a.ModConstant(a.DivConstant(line, stride), slice[d]);
      stride *= slice[d];
    }
    return idx;
  };
  auto full_index = [&](const std::vector<std::string>& l, const std::string& at) {
    std::vector<std::string> idx = l;
    idx.insert(idx.begin() + dim, at);
    return idx;
  };
  auto carry_index = [&](int64_t i, const std::vector<std::string>& l) {
    return scan->operands[plan.inputs + i]->shape.rank() == 0 ? std::vector<std::string>{} : l;
  };
  std::string main;
  // Declares carry0.. from the init values (at this line of the slice).
  auto declare_carries = [&](const std::vector<std::string>& l) -> StatusOr<std::vector<std::string>> {
    std::vector<std::string> carry;
    for (int64_t i = 0; i < plan.carries; ++i) {
      ASSIGN_OR_RETURN(std::string v, Value(scan->operands[plan.inputs + i], carry_index(i, l)));
      carry.push_back("carry" + std::to_string(i));
      body_ += "  " + carry_types[i].compute + " carry" + std::to_string(i) + " = " + v + ";\n";
    }
    main += body_;
    body_.clear();
    memo_.clear();
    return carry;
  };
  const std::string reverse_at = plan.reverse ? U(length - 1) + " - t" : std::string("t");
  KernelSource k;
  k.local_size = 256;
  body_.clear();
  memo_.clear();
  if (!parallel) {
    main += "  if (inv >= " + U(lines) + ") return;\n";
    const std::vector<std::string> l = line_index("inv");
    ASSIGN_OR_RETURN(std::vector<std::string> carry, declare_carries(l));
    main += "  for (uint t = 0u; t < " + U(length) + "; ++t) {\n    uint at = " + reverse_at + ";\n";
    std::vector<std::string> args;
    for (int64_t i = 0; i < plan.inputs; ++i) {
      ASSIGN_OR_RETURN(std::string v, Value(scan->operands[i], full_index(l, "at")));
      args.push_back(v);
    }
    args.insert(args.end(), carry.begin(), carry.end());
    ASSIGN_OR_RETURN(std::vector<std::string> r, Apply(*f, args));
    if (is_output) {
      ASSIGN_OR_RETURN(std::string p, PhysicalIndex(out_, out_layout_, full_index(l, "at")));
      ASSIGN_OR_RETURN(std::string store, StoreScattered(t, p, r[result]));
      body_ += store;
    }
    std::vector<std::string> next(r.begin() + plan.outputs, r.end());
    for (int64_t i = 0; i < plan.carries; ++i) next[i] = Temp(carry_types[i].compute, next[i]);
    for (int64_t i = 0; i < plan.carries; ++i) body_ += "    " + carry[i] + " = " + next[i] + ";\n";
    main += body_ + "  }\n";
    if (!is_output) {
      body_.clear();
      ASSIGN_OR_RETURN(std::string p, PhysicalIndex(out_, out_layout_, l));
      ASSIGN_OR_RETURN(std::string store, StoreScattered(t, p, carry[result - plan.outputs]));
      main += store;
    }
    k.invocations = static_cast<uint64_t>(lines);
  } else {
    const int64_t L = std::min<int64_t>(256, PowerOfTwoAtLeast(length)), P = 256 / L;
    const int64_t groups = (lines + P - 1) / P;
    const int64_t m = plan.carries;
    for (int64_t i = 0; i < m; ++i)
      shared_ += "shared " + carry_types[i].compute + " part" + std::to_string(i) + "[256];\n";
    shared_ += "shared bool part_has[256];\n";
    // ⊕(a, b) for a earlier than b: the computation with b as the input and a as the carry.
    auto combine = [&](const std::vector<std::string>& earlier, const std::vector<std::string>& later)
        -> StatusOr<std::vector<std::string>> {
      std::vector<std::string> args = later;
      args.insert(args.end(), earlier.begin(), earlier.end());
      ASSIGN_OR_RETURN(std::vector<std::string> r, Apply(*f, args));
      std::vector<std::string> c(r.begin() + plan.outputs, r.end());
      for (int64_t i = 0; i < m; ++i) c[i] = Temp(carry_types[i].compute, c[i]);
      return c;
    };
    main += "  uint lid = gl_LocalInvocationID.x;\n  uint wg = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;\n";
    main += "  if (wg >= " + U(groups) + ") return;\n";
    main += "  uint slot = lid / " + U(L) + ", lane = lid % " + U(L) + ", line = min(wg * " + U(P) + " + slot, " +
            U(lines - 1) + ");\n";
    main += "  bool live = wg * " + U(P) + " + slot < " + U(lines) + ";\n";
    const std::vector<std::string> l = line_index("line");
    ASSIGN_OR_RETURN(std::vector<std::string> carry, declare_carries(l));
    main += "  for (uint base = 0u; base < " + U(length) + "; base += " + U(L) + ") {\n";
    main += "    uint t = min(base + lane, " + U(length - 1) + ");\n    uint at = " + reverse_at + ";\n";
    main += "    bool has = base + lane < " + U(length) + ";\n";
    for (int64_t i = 0; i < m; ++i) {
      ASSIGN_OR_RETURN(std::string v, Value(scan->operands[i], full_index(l, "at")));
      body_ += "    part" + std::to_string(i) + "[lid] = " + v + ";\n";
    }
    main += body_ + "    part_has[lid] = has;\n";
    body_.clear();
    memo_.clear();
    // Hillis-Steele: after step s each element holds the fold of its 2s predecessors.
    main += "    for (uint s = 1u; s < " + U(L) + "; s <<= 1u) {\n      barrier();\n";
    main += "      bool take = lane >= s && part_has[lid] && part_has[lid - s];\n";
    std::vector<std::string> earlier, later, saved;
    for (int64_t i = 0; i < m; ++i) {
      earlier.push_back(Temp(carry_types[i].compute, "part" + std::to_string(i) + "[lane >= s ? lid - s : lid]"));
      later.push_back(Temp(carry_types[i].compute, "part" + std::to_string(i) + "[lid]"));
    }
    main += body_ + "      barrier();\n      if (take) {\n";
    body_.clear();
    ASSIGN_OR_RETURN(std::vector<std::string> joined, combine(earlier, later));
    for (int64_t i = 0; i < m; ++i) body_ += "      part" + std::to_string(i) + "[lid] = " + joined[i] + ";\n";
    main += body_ + "      }\n    }\n    barrier();\n";
    body_.clear();
    memo_.clear();
    // This element's value, then the carry past the chunk's last element.
    std::vector<std::string> prefix, last;
    for (int64_t i = 0; i < m; ++i) prefix.push_back(Temp(carry_types[i].compute, "part" + std::to_string(i) + "[lid]"));
    ASSIGN_OR_RETURN(std::vector<std::string> value, combine(carry, prefix));
    if (is_output) {
      ASSIGN_OR_RETURN(std::string p, PhysicalIndex(out_, out_layout_, full_index(l, "at")));
      ASSIGN_OR_RETURN(std::string store, StoreScattered(t, p, value[result]));
      body_ += "    if (live && has) {\n" + store + "    }\n";
    }
    const std::string last_lane = Temp("uint", "slot * " + U(L) + " + min(" + U(length) + " - base, " + U(L) + ") - 1u");
    for (int64_t i = 0; i < m; ++i) last.push_back(Temp(carry_types[i].compute, "part" + std::to_string(i) + "[" + last_lane + "]"));
    ASSIGN_OR_RETURN(std::vector<std::string> next, combine(carry, last));
    for (int64_t i = 0; i < m; ++i) body_ += "    " + carry[i] + " = " + next[i] + ";\n";
    main += body_ + "    barrier();\n  }\n";
    if (!is_output) {
      body_.clear();
      ASSIGN_OR_RETURN(std::string p, PhysicalIndex(out_, out_layout_, l));
      ASSIGN_OR_RETURN(std::string store, StoreScattered(t, p, carry[result - plan.outputs]));
      main += "  if (live && lane == 0u) {\n" + store + "  }\n";
    }
    k.invocations = static_cast<uint64_t>(groups) * 256;
  }
  k.name = std::string(parallel ? "scan_parallel_" : "scan_") + root.name;
  k.inputs = inputs_;
  k.output = out;
  k.glsl = Prologue(256, k.name) + main + "}\n";
  return k;
}

}  // namespace vkxla
