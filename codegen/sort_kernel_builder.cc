// Sort and topk through a permutation (plan/sort_config.h). A block
// merge sorts each line's element indices (padded to whole blocks with
// sentinels that sort last), comparing the operands' values at those
// indices: kernel 0 sorts blocks in shared memory by a bitonic network,
// kernels 1 and 2 merge runs pairwise between two planes. Ties are broken
// by the original index, so every sort is stable, and the result is the
// same on every device. The results are then index maps through the
// permutation (ElementEmitter::SortResults). Radix sorts and selects (the
// Radix* and Select* kernels) are described in plan/sort_config.h.
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
    if (c_.algorithm == SortConfig::Algorithm::kRadixSelect) {
      push_constants_ = "layout(push_constant) uniform Push { uint word, shift, first, flags; } pc;\n";
      counts_ = BindBuffer(group_.scratch[1], Access::kReadWrite, "counts");
      switch (kernel) {
        case 0: return SelectTile(false);
        case 1: return SelectPick();
        case 2: return SelectTile(true);
        case 3: return SelectRank();
        default: return SelectClear();
      }
    }
    if (c_.algorithm == SortConfig::Algorithm::kRadix) {
      push_constants_ = "layout(push_constant) uniform Push { uint word, shift, first, flags; } pc;\n";
      counts_ = BindBuffer(group_.scratch[1], Access::kReadWrite, "counts");
      images_ = BindBuffer(group_.scratch[2], Access::kReadWrite, "images");
      if (kernel == 1) return RadixScan();
      return RadixTile(kernel == 2);
    }
    push_constants_ = "layout(push_constant) uniform Push { uint k0, k1, j0, initial; } pc;\n";
    if (c_.merges > 0) plane_ = BindBuffer(group_.scratch[1], Access::kReadWrite, "runs");
    if (kernel == 0) return c_.run_sort ? RunSort(c_.merges % 2 == 1 ? plane_ : perm_) : Local(c_.merges % 2 == 1 ? plane_ : perm_);
    return kernel == 1 ? Merge(perm_, plane_) : Merge(plane_, perm_);
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
  // first step j (j0 for the first), from the identity; every block ends
  // ascending in `out`.
  StatusOr<KernelSource> Local(const std::string& out) {
    // A workgroup holds `rows` whole lines (short ones) or one block of a line.
    const int64_t block = c_.block, blocks_per_line = c_.padded / block, rows = c_.lines_per_group, span = rows * block;
    const int64_t groups = (c_.lines + rows - 1) / rows * blocks_per_line;
    const Shape& x = sort_.operands[0]->shape;
    const std::string n_pad = U(c_.padded), B = U(block);
    shared_ = "shared uint sidx[" + std::to_string(span) + "];\n";
    for (size_t i = 0; i < key_count_; ++i)
      shared_ += "shared " + types_[i].compute + " skey" + std::to_string(i) + "[" + std::to_string(span) + "];\n";
    std::string main = "  uint lid = gl_LocalInvocationID.x;\n  uint wg = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;\n";
    main += "  if (wg >= " + U(groups) + ") return;\n";
    main += "  uint line0 = wg / " + U(blocks_per_line) + " * " + U(rows) + ", base = (wg % " + U(blocks_per_line) + ") * " + B + ";\n";
    // Load the block(s): indices, and the keys at them. Rows past the last
    // line sort a copy of it and are not written.
    main += "  for (uint e = lid; e < " + U(span) + "; e += 256u) {\n";
    main += "    uint line = min(line0 + e / " + B + ", " + U(c_.lines - 1) + "), pos = e % " + B + ";\n";
    main += "    uint j = base + pos;\n    sidx[e] = j;\n";
    body_.clear();
    ClearMemo();
    VKXLA_ASSIGN_OR_RETURN(std::vector<std::string> keys, Keys(LineIndex(x, c_.dim, "line"), "j"));
    main += body_;
    for (size_t i = 0; i < key_count_; ++i) main += "    skey" + std::to_string(i) + "[e] = " + keys[i] + ";\n";
    main += "  }\n  barrier();\n";
    main += "  for (uint k = pc.k0; k <= pc.k1; k <<= 1u) {\n";
    main += "  for (uint jj = k == pc.k0 ? pc.j0 : k >> 1u; jj > 0u; jj >>= 1u) {\n";
    main += "  for (uint q = lid; q < " + U(span / 2) + "; q += 256u) {\n";
    main += "    uint r = q / " + U(block / 2) + ", p = q % " + U(block / 2) + ";\n";
    main += "    uint i = r * " + B + " + (((p & ~(jj - 1u)) << 1u) | (p & (jj - 1u))), m = i + jj;\n";
    main += "    bool up = ((i % " + B + ") & k) == 0u;\n";
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
    main += "  for (uint e = lid; e < " + U(span) + "; e += 256u) {\n    uint line = line0 + e / " + B + ";\n    if (line < " +
            U(c_.lines) + ") W(" + out + ", line * " + n_pad + " + base + e % " + B + ") = sidx[e];\n  }\n}\n";
    return Finish(group_.kernels[0].name, 256, main);
  }

  // The keys of element `index` of `line` into the variables `vars`: code.
  StatusOr<std::string> LoadKeys(const std::vector<std::string>& line, const std::string& index, const std::vector<std::string>& vars) {
    body_.clear();
    ClearMemo();
    VKXLA_ASSIGN_OR_RETURN(std::vector<std::string> keys, Keys(line, index));
    std::string code = body_;
    for (size_t k = 0; k < key_count_; ++k) code += vars[k] + " = " + keys[k] + ";\n";
    return code;
  }

  // Code setting `result` to whether record (a, ia) sorts before (b, ib).
  StatusOr<std::string> Compare(const std::vector<std::string>& a, const std::vector<std::string>& b, const std::string& ia,
                                const std::string& ib, const std::string& result) {
    body_.clear();
    ClearMemo();
    VKXLA_ASSIGN_OR_RETURN(std::string ab, Before(a, b, ia, ib));
    return body_ + result + " = " + ab + ";\n";
  }

  // Names `prefix`0, 1, ... for the keys, declared (as arrays of `count`
  // where count > 0) in `decl`.
  std::vector<std::string> KeyVariables(const std::string& prefix, int64_t count, std::string& decl) {
    std::vector<std::string> vars;
    for (size_t k = 0; k < key_count_; ++k) {
      vars.push_back(prefix + std::to_string(k));
      decl += "  " + types_[k].compute + " " + vars.back() + (count > 0 ? "[" + std::to_string(count) + "]" : "") + ";\n";
    }
    return vars;
  }

  // CPU devices' kernel 0: each invocation sorts a block of its line by
  // insertion in private arrays, at most `block` shifts an element.
  StatusOr<KernelSource> RunSort(const std::string& out) {
    const Shape& x = sort_.operands[0]->shape;
    const int64_t blocks = c_.padded / c_.block;
    const std::string B = U(c_.block);
    std::string main = "  if (inv >= " + U(static_cast<int64_t>(c_.LocalInvocations())) + ") return;\n";
    main += "  uint line = inv / " + U(blocks) + ", base = inv % " + U(blocks) + " * " + B + ", j, p;\n  uint sidx[" +
            std::to_string(c_.block) + "];\n  bool earlier;\n";
    const std::vector<std::string> run = KeyVariables("run", c_.block, main), key = KeyVariables("key", 0, main);
    VKXLA_ASSIGN_OR_RETURN(std::string load, LoadKeys(LineIndex(x, c_.dim, "line"), "j", key));
    std::vector<std::string> prev;
    for (const std::string& r : run) prev.push_back(r + "[p - 1u]");
    VKXLA_ASSIGN_OR_RETURN(std::string compare, Compare(key, prev, "j", "sidx[p - 1u]", "earlier"));
    main += "  for (uint e = 0u; e < " + B + "; ++e) {\n    j = base + e;\n    {\n" + load + "    }\n";
    main += "    for (p = e; p > 0u; --p) {\n      {\n" + compare + "      }\n      if (!earlier) break;\n      sidx[p] = sidx[p - 1u];\n";
    for (const std::string& r : run) main += "      " + r + "[p] = " + r + "[p - 1u];\n";
    main += "    }\n    sidx[p] = j;\n";
    for (size_t k = 0; k < key_count_; ++k) main += "    " + run[k] + "[p] = " + key[k] + ";\n";
    main += "  }\n  for (uint e = 0u; e < " + B + "; ++e) W(" + out + ", line * " + U(c_.padded) + " + base + e) = sidx[e];\n}\n";
    return Finish(group_.kernels[0].name, 256, main);
  }

  // One merge pass: runs of pc.k0 in `in` merge pairwise into `out`. An
  // invocation writes merge_chunk consecutive outputs: segments of the
  // pair that holds them (a whole pair each where pairs are shorter than
  // the chunk). For each, a binary search along the merge path finds how
  // many of the first run precede the segment, then it takes the lesser
  // head once per output. Records are distinct (ties go by index), so the
  // merge is exact.
  StatusOr<KernelSource> Merge(const std::string& in, const std::string& out) {
    const Shape& x = sort_.operands[0]->shape;
    const std::string n_pad = U(c_.padded), chunk = U(c_.merge_chunk);
    const std::vector<std::string> line = LineIndex(x, c_.dim, "line");
    const int64_t chunks = c_.padded / c_.merge_chunk;
    std::string main = "  if (inv >= " + U(static_cast<int64_t>(c_.MergeInvocations())) + ") return;\n";
    main += "  uint line = inv / " + U(chunks) + ", row = line * " + n_pad + ", run = pc.k0, seg = min(" + chunk + ", 2u * run), ia, ib;\n";
    main += "  bool a_first;\n";
    const std::vector<std::string> ka = KeyVariables("ka", 0, main), kb = KeyVariables("kb", 0, main);
    VKXLA_ASSIGN_OR_RETURN(std::string load_a, LoadKeys(line, "ia", ka));
    VKXLA_ASSIGN_OR_RETURN(std::string load_b, LoadKeys(line, "ib", kb));
    VKXLA_ASSIGN_OR_RETURN(std::string compare, Compare(ka, kb, "ia", "ib", "a_first"));
    main += "  for (uint o = inv % " + U(chunks) + " * " + chunk + ", end = o + " + chunk + "; o < end; o += seg) {\n";
    main += "  uint a0 = o / (2u * run) * (2u * run), d = o - a0;\n";
    main += "  uint alen = min(run, " + n_pad + " - a0), b0 = a0 + alen, blen = min(run, " + n_pad + " - b0);\n";
    // Binary search: lo records of the first run precede output d. At most
    // 32 halvings of a range below 2^32.
    main += "  uint lo = d > blen ? d - blen : 0u, hi = min(d, alen);\n";
    main += "  for (uint t = 0u; t < 32u && lo < hi; ++t) {\n    uint mid = (lo + hi) >> 1u;\n";
    main += "    ia = W(" + in + ", row + a0 + mid);\n    ib = W(" + in + ", row + b0 + d - 1u - mid);\n";
    main += "    {\n" + load_a + "}\n    {\n" + load_b + "}\n    {\n" + compare + "}\n";
    main += "    if (a_first) lo = mid + 1u; else hi = mid;\n  }\n";
    // The merge: heads past their run read their run's last record and
    // never win (a run without a partner reads its own as the other head).
    main += "  uint i = lo, j = d - lo;\n";
    const std::string read_a = "ia = W(" + in + ", row + a0 + min(i, alen - 1u));\n";
    const std::string read_b = "ib = W(" + in + ", row + (blen == 0u ? a0 : b0 + min(j, blen - 1u)));\n";
    main += "  " + read_a + "  {\n" + load_a + "  }\n  " + read_b + "  {\n" + load_b + "  }\n";
    main += "  for (uint t = 0u; t < seg; ++t) {\n";
    main += "    {\n" + compare + "    }\n";
    main += "    bool take_a = i < alen && (j >= blen || a_first);\n";
    main += "    W(" + out + ", row + o + t) = take_a ? ia : ib;\n";
    main += "    if (take_a) {\n      ++i;\n      " + read_a + "      {\n" + load_a + "      }\n    } else {\n      ++j;\n      " +
            read_b + "      {\n" + load_b + "      }\n    }\n  }\n  }\n}\n";
    return Finish(group_.kernels[out == perm_ ? 2 : 1].name, 256, main);
  }

  // Radix: the unsigned image of key k's value `v` whose order is the
  // comparator's (radix_sort_keys.h): a uint, or a uvec2 (low, high) for
  // 64-bit keys.
  std::string RadixImage(const RadixKey& key, const std::string& v) {
    const ElementType t = sort_.operands[key.operand]->shape.element_type();
    const std::string total = key.total_order ? "true" : "false";
    std::string image;
    if (t == ElementType::kF64) {
      Helper("radix_double", "uvec2 radix_double(double v, bool total) {\n  uvec2 w = unpackDouble2x32(v);\n"
                             "  if (!total && ((w.y & 0x7fffffffu) | w.x) == 0u) w = uvec2(0u);\n"
                             "  return (w.y >> 31u) != 0u ? ~w : uvec2(w.x, w.y ^ 0x80000000u);\n}\n");
      image = "radix_double(" + v + ", " + total + ")";
    } else if (t == ElementType::kS64 || t == ElementType::kU64) {
      const std::string u = t == ElementType::kS64 ? "(uint64_t(" + v + ") ^ 0x8000000000000000ul)" : "uint64_t(" + v + ")";
      image = "unpackUint2x32(" + u + ")";
    } else if (IsFloat(t)) {
      // -0 is +0 unless the order is total; the half floats' f32 images
      // end in zero bits.
      Helper("radix_float", "uint radix_float(float v, bool total) {\n  uint b = floatBitsToUint(v);\n"
                            "  if (!total && (b & 0x7fffffffu) == 0u) b = 0u;\n"
                            "  return b ^ ((b >> 31u) != 0u ? 0xffffffffu : 0x80000000u);\n}\n");
      image = "(radix_float(" + v + ", " + total + ") >> " + std::to_string(32 - key.bits) + "u)";
    } else if (IsSignedInt(t)) {
      image = "(uint(" + v + ") ^ " + U(int64_t{1} << (key.bits - 1)) + ")";
    } else {
      image = "uint(" + v + ")";
    }
    if (key.Words() == 2) return key.descending ? "~" + image : image;
    if (key.descending) image = "~" + image;
    return key.bits < 32 ? "(" + image + " & " + U((int64_t{1} << key.bits) - 1) + ")" : image;
  }

  // Radix, the first pass: code that sets img0.. (the keys' images,
  // radix_keys' order, 64-bit keys low word first) of element `j` of the
  // line from the operands.
  StatusOr<std::string> ImagesFromOperands(const std::string& j) {
    std::vector<std::string> at = LineIndex(sort_.operands[0]->shape, c_.dim, "line");
    at[c_.dim] = j;
    body_.clear();
    ClearMemo();
    std::string set;
    int w = 0;
    for (const RadixKey& key : c_.radix_keys) {
      VKXLA_ASSIGN_OR_RETURN(std::string v, Value(sort_.operands[key.operand], at));
      const std::string image = RadixImage(key, v);
      if (key.Words() == 2) {
        set += "      { uvec2 w = " + image + "; img" + std::to_string(w) + " = w.x; img" + std::to_string(w + 1) + " = w.y; }\n";
        w += 2;
      } else {
        set += "      img" + std::to_string(w++) + " = " + image + ";\n";
      }
    }
    return body_ + set;
  }

  // Radix: the loop over this invocation's run of the tile, setting `j`
  // (the element), `idx` (its index in the line), `digit` and, with
  // `all_images`, img0..; `body` follows.
  StatusOr<std::string> RadixRun(const std::string& body, bool all_images) {
    const int64_t words = c_.RadixWords();
    const std::string n = U(c_.length), plane = U(c_.RadixPlane());
    std::string declare = "    uint word";
    for (int64_t w = 0; w < words; ++w) declare += ", img" + std::to_string(w);
    declare += ";\n";
    VKXLA_ASSIGN_OR_RETURN(const std::string images, ImagesFromOperands("j"));
    std::string chosen = "img" + std::to_string(words - 1);
    for (int64_t w = words - 1; w-- > 0;) chosen = "(pc.word == " + U(w) + " ? img" + std::to_string(w) + " : " + chosen + ")";
    auto image_at = [&](const std::string& w) { return "W(" + images_ + ", images_src + " + w + " * " + plane + " + line * " + n + " + j)"; };
    std::string loop = "  for (uint e = 0u; e < " + U(c_.radix_per_lane) + "; ++e) {\n    uint j = first + e;\n    if (j >= " + n +
                       ") break;\n    uint idx;\n" + declare + "    if (pc.first != 0u) {\n      idx = j;\n" + images + "      word = " +
                       chosen + ";\n    } else {\n      idx = W(" + perm_ + ", src + line * " + n + " + j);\n";
    if (all_images) {
      for (int64_t w = 0; w < words; ++w) loop += "      img" + std::to_string(w) + " = " + image_at(U(w)) + ";\n";
      loop += "      word = " + chosen + ";\n";
    } else {
      loop += "      word = " + image_at("pc.word") + ";\n";
    }
    loop += "    }\n    uint digit = (word >> pc.shift) & " + U(c_.RadixDigitValues() - 1) + ";\n" + body + "  }\n";
    return loop;
  }

  // Radix kernels 0 (count) and 2 (place): a tile of the line, each lane
  // its run of elements in order. Both find each element's digit, count
  // them per (digit, lane) and scan the counts digit-major, so that an
  // element's place in its tile keeps the line's order among equal digits
  // (the sort is stable). The keys' images travel with the indices (the
  // first pass computes them), so that every read after the first pass's
  // fused operands is in order.
  StatusOr<KernelSource> RadixTile(bool place) {
    const int64_t lanes = c_.radix_lanes, tiles = c_.RadixTiles(), values = c_.RadixDigitValues();
    const std::string L = U(lanes), n = U(c_.length), T = U(tiles), V = U(values), plane = U(c_.RadixPlane());
    shared_ = "shared uint cnt[" + std::to_string(values * lanes) + "];\nshared uint part[" + std::to_string(lanes) +
              "];\nshared uint base[" + std::to_string(values) + "];\n";
    std::string main = "  uint lid = gl_LocalInvocationID.x;\n  uint wg = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;\n";
    main += "  if (wg >= " + U(c_.RadixWorkgroups()) + ") return;\n";
    if (c_.radix_lane_per_line) {
      // Each lane its own line, start to end; no lane waits for another.
      main += "  uint line = wg * " + L + " + lid, first = 0u;\n  if (line >= " + U(c_.lines) + ") return;\n";
    } else {
      main += "  uint line = wg / " + T + ", tile = wg % " + T + ", first = tile * " + U(c_.RadixTile()) + " + lid * " +
              U(c_.radix_per_lane) + ";\n";
    }
    // Planes: this pass reads the one the last pass wrote.
    main += "  uint dst = (pc.flags & 1u) != 0u ? " + plane + " : 0u, src = " + plane + " - dst;\n";
    main += "  uint images_dst = dst * " + U(c_.RadixWords()) + ", images_src = src * " + U(c_.RadixWords()) + ";\n";
    main += "  for (uint d = 0u; d < " + V + "; ++d) cnt[d * " + L + " + lid] = 0u;\n";
    VKXLA_ASSIGN_OR_RETURN(std::string count, RadixRun("    cnt[digit * " + L + " + lid] += 1u;\n", false));
    main += count;
    if (c_.radix_lane_per_line) {
      // Its digits' offsets in its line; then place (kernel 2 alone runs).
      main += "  uint run = 0u;\n  for (uint d = 0u; d < " + V + "; ++d) {\n    uint c = cnt[d * " + L + " + lid];\n    cnt[d * " + L +
              " + lid] = run;\n    run += c;\n  }\n";
    } else {
      main += "  barrier();\n";
    }
    if (!c_.radix_lane_per_line) {
      // Exclusive scan of cnt in (digit, lane) order: each invocation sums
      // its `values` consecutive counts, the sums are scanned, and each
      // writes its counts' offsets.
      main += "  uint own = 0u;\n  for (uint q = 0u; q < " + V + "; ++q) own += cnt[lid * " + V + " + q];\n  part[lid] = own;\n  barrier();\n";
      main += "  for (uint off = 1u; off < " + L + "; off <<= 1u) {\n    uint a = lid >= off ? part[lid - off] : 0u;\n    barrier();\n"
              "    part[lid] += a;\n    barrier();\n  }\n";
      main += "  uint run = part[lid] - own;\n  for (uint q = 0u; q < " + V + "; ++q) {\n    uint c = cnt[lid * " + V + " + q];\n"
              "    cnt[lid * " + V + " + q] = run;\n    run += c;\n  }\n  barrier();\n";
    }
    const std::string count_at = "(line * " + V + " + d) * " + T + " + tile";
    if (!place) {
      // The tile's count of each digit.
      main += "  for (uint d = lid; d < " + V + "; d += " + L + ") {\n    uint end = d == " + U(values - 1) + " ? min(" + n + " - tile * " +
              U(c_.RadixTile()) + ", " + U(c_.RadixTile()) + ") : cnt[(d + 1u) * " + L + "];\n    W(" + counts_ + ", " + count_at +
              ") = end - cnt[d * " + L + "];\n  }\n}\n";
      return Finish(group_.kernels[0].name, static_cast<uint32_t>(lanes), main);
    }
    // Where each digit's elements of this tile start in the line: the
    // digits before it, then the tiles before this one (kernel 1's scan).
    const std::string totals = U(c_.lines * values * tiles) + " + line * " + V;
    // (A line of one tile: its tile's offsets are the places.)
    const bool one_tile = tiles == 1;
    if (!one_tile)
      main += "  if (lid == 0u) {\n    uint before = 0u;\n    for (uint d = 0u; d < " + V + "; ++d) {\n      base[d] = before + W(" + counts_ +
              ", " + count_at + ") - cnt[d * " + L + "];\n      before += W(" + counts_ + ", " + totals + " + d);\n    }\n  }\n  barrier();\n";
    std::string body = "    uint slot = digit * " + L + " + lid, at = line * " + n + (one_tile ? "" : " + base[digit]") +
                       " + cnt[slot];\n    cnt[slot] = cnt[slot] + 1u;\n";
    body += "    W(" + perm_ + ", dst + at) = idx;\n";
    // The images go along, but for the last pass.
    body += "    if ((pc.flags & 2u) == 0u) {\n";
    for (int64_t w = 0; w < c_.RadixWords(); ++w)
      body += "      W(" + images_ + ", images_dst + " + U(w) + " * " + plane + " + at) = img" + std::to_string(w) + ";\n";
    body += "    }\n";
    VKXLA_ASSIGN_OR_RETURN(std::string write, RadixRun(body, true));
    main += write + "}\n";
    return Finish(group_.kernels[2].name, static_cast<uint32_t>(lanes), main);
  }

  // Radix kernel 1: a workgroup per (line, digit) scans that digit's tile
  // counts across the line in place (exclusive) and writes their total.
  StatusOr<KernelSource> RadixScan() {
    const int64_t tiles = c_.RadixTiles();
    const std::string T = U(tiles);
    shared_ = "shared uint part[256];\n";
    std::string main = "  uint lid = gl_LocalInvocationID.x;\n  uint row = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;\n";
    main += "  if (row >= " + U(c_.lines * c_.RadixDigitValues()) + ") return;\n  uint carry = 0u;\n";
    main += "  for (uint c0 = 0u; c0 < " + T + "; c0 += 256u) {\n    uint i = c0 + lid;\n";
    main += "    uint v = i < " + T + " ? W(" + counts_ + ", row * " + T + " + i) : 0u;\n    part[lid] = v;\n    barrier();\n";
    main += "    for (uint off = 1u; off < 256u; off <<= 1u) {\n      uint a = lid >= off ? part[lid - off] : 0u;\n      barrier();\n"
            "      part[lid] += a;\n      barrier();\n    }\n";
    main += "    if (i < " + T + ") W(" + counts_ + ", row * " + T + " + i) = carry + part[lid] - v;\n";
    main += "    carry += part[255];\n    barrier();\n  }\n";
    main += "  if (lid == 0u) W(" + counts_ + ", " + U(c_.lines * c_.RadixDigitValues() * tiles) + " + row) = carry;\n}\n";
    return Finish(group_.kernels[1].name, 256, main);
  }

  // Radix select: code setting <p>0, <p>1, ... to the composite key of
  // element `j` of the line (the key's image words, most significant
  // first, then j).
  StatusOr<std::string> Composite(const std::string& j, const std::string& p) {
    std::vector<std::string> at = LineIndex(sort_.operands[0]->shape, c_.dim, "line");
    at[c_.dim] = j;
    body_.clear();
    ClearMemo();
    VKXLA_ASSIGN_OR_RETURN(std::string v, Value(sort_.operands[0], at));
    const RadixKey& key = c_.radix_keys[0];
    const std::string image = RadixImage(key, v);
    std::string code = body_;
    if (key.Words() == 2)
      code += "    uvec2 " + p + "_image = " + image + ";\n    uint " + p + "0 = " + p + "_image.y, " + p + "1 = " + p + "_image.x, " + p +
              "2 = " + j + ";\n";
    else
      code += "    uint " + p + "0 = " + image + ", " + p + "1 = " + j + ";\n";
    body_.clear();
    ClearMemo();
    return code;
  }

  // Whether composite a sorts before composite b (word by word).
  std::string CompositeLess(const std::string& a, const std::string& b) const {
    std::string less;
    for (int w = c_.SelectWords(); w-- > 0;) {
      const std::string x = a + std::to_string(w), y = b + std::to_string(w);
      less = less.empty() ? "(" + x + " < " + y + ")" : "(" + x + " < " + y + " || (" + x + " == " + y + " && " + less + "))";
    }
    return less;
  }

  // The chosen composite's words so far, p0.. (zero before the first pass).
  std::string ChosenWords(bool first_may_be_unset) const {
    std::string code;
    for (int w = 0; w < c_.SelectWords(); ++w) {
      const std::string read = "W(" + counts_ + ", state + " + U(w) + ")";
      code += "  uint p" + std::to_string(w) + " = " + (first_may_be_unset ? "pc.first != 0u ? 0u : " + read : read) + ";\n";
    }
    return code;
  }

  // Select kernels 0 (count) and 2 (gather): a tile of the line, each lane
  // its run of elements. Count: the current digit of the elements whose
  // composite matches the chosen digits above it, a tile's counts meeting
  // in shared memory, then in the line's histogram. Gather: the elements
  // at or below the chosen composite (exactly k) into the candidates.
  StatusOr<KernelSource> SelectTile(bool gather) {
    const int64_t lanes = c_.radix_lanes, tiles = c_.RadixTiles(), words = c_.SelectWords();
    const std::string L = U(lanes), n = U(c_.length), T = U(tiles);
    const std::string counts_uint = ScalarAlias(counts_, "uint");
    std::string main = "  uint lid = gl_LocalInvocationID.x;\n  uint wg = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;\n";
    main += "  if (wg >= " + U(c_.RadixWorkgroups()) + ") return;\n";
    main += "  uint line = wg / " + T + ", tile = wg % " + T + ", first = tile * " + U(c_.RadixTile()) + " + lid * " +
            U(c_.radix_per_lane) + ";\n";
    main += "  uint state = " + U(c_.SelectState(0)) + " + line * " + U(SortConfig::kSelectStateWords) + ";\n";
    if (!gather) {
      // A line whose k are known already (every workgroup of it alike).
      main += "  if (pc.first == 0u && W(" + counts_ + ", state + 5u) != 0u) return;\n";
      shared_ = "shared uint hist[256];\n";
      main += "  for (uint d = lid; d < 256u; d += " + L + ") hist[d] = 0u;\n  barrier();\n";
    }
    main += ChosenWords(!gather);
    VKXLA_ASSIGN_OR_RETURN(const std::string composite, Composite("j", "c"));
    main += "  for (uint e = 0u; e < " + U(c_.radix_per_lane) + "; ++e) {\n    uint j = first + e;\n    if (j >= " + n + ") break;\n" +
            composite;
    if (gather) {
      main += "    if (!" + CompositeLess("p", "c") + ") {\n      uint slot = atomicAdd(" + counts_uint + ".v[state + 4u], 1u);\n" +
              "      if (slot < " + U(c_.select_k) + ") W(" + counts_ + ", " + U(c_.SelectCandidates(0)) + " + line * " +
              U(c_.select_k) + " + slot) = j;\n    }\n  }\n}\n";
      return Finish(group_.kernels[2].name, static_cast<uint32_t>(lanes), main);
    }
    // The word being chosen, the words above it equal to the chosen ones,
    // and its bits above the digit too.
    std::string word = "c" + std::to_string(words - 1), chosen = "p" + std::to_string(words - 1), above = "true";
    for (int64_t w = words - 1; w-- > 0;) {
      word = "(pc.word == " + U(w) + " ? c" + std::to_string(w) + " : " + word + ")";
      chosen = "(pc.word == " + U(w) + " ? p" + std::to_string(w) + " : " + chosen + ")";
      above += " && (pc.word <= " + U(w) + " || c" + std::to_string(w) + " == p" + std::to_string(w) + ")";
    }
    main += "    uint cw = " + word + ", pw = " + chosen + ";\n";
    main += "    bool match = " + above + " && (pc.shift + 8u >= 32u || (cw >> (pc.shift + 8u)) == (pw >> (pc.shift + 8u)));\n";
    main += "    if (match) atomicAdd(hist[(cw >> pc.shift) & 255u], 1u);\n  }\n  barrier();\n";
    main += "  for (uint d = lid; d < 256u; d += " + L + ") {\n    uint h = hist[d];\n    if (h != 0u) atomicAdd(" + counts_uint +
            ".v[line * 256u + d], h);\n  }\n}\n";
    return Finish(group_.kernels[0].name, static_cast<uint32_t>(lanes), main);
  }

  // Select kernel 1: a line per invocation walks its histogram up to the
  // digit that holds the rank still to find, keeps the digit and the rank
  // within it, and clears the histogram for the next digit. Where the
  // rank is the digit's last element, all of the digit's elements are in:
  // the chosen composite's lower bits become ones and the line is done
  // (later counts skip it).
  StatusOr<KernelSource> SelectPick() {
    std::string main = "  if (inv >= " + U(c_.lines) + ") return;\n  uint line = inv;\n";
    main += "  uint state = " + U(c_.SelectState(0)) + " + line * " + U(SortConfig::kSelectStateWords) + ";\n";
    main += "  if (pc.first != 0u) {\n";
    for (int w = 0; w < c_.SelectWords(); ++w) main += "    W(" + counts_ + ", state + " + U(w) + ") = 0u;\n";
    main += "    W(" + counts_ + ", state + 3u) = " + U(c_.select_k) + ";\n    W(" + counts_ + ", state + 5u) = 0u;\n  }\n";
    main += "  if (W(" + counts_ + ", state + 5u) != 0u) return;\n";
    main += "  uint rank = W(" + counts_ + ", state + 3u), below = 0u, digit = 255u, held = 0u;\n  bool found = false;\n";
    main += "  for (uint d = 0u; d < 256u; ++d) {\n    uint h = W(" + counts_ + ", line * 256u + d);\n    W(" + counts_ +
            ", line * 256u + d) = 0u;\n    if (!found) {\n      if (below + h >= rank) {\n        digit = d;\n        held = h;\n"
            "        found = true;\n      } else {\n        below += h;\n      }\n    }\n  }\n";
    main += "  uint chosen = W(" + counts_ + ", state + pc.word) | (digit << pc.shift);\n";
    main += "  if (below + held == rank) {\n    chosen |= pc.shift == 0u ? 0u : (1u << pc.shift) - 1u;\n";
    for (int w = 1; w < c_.SelectWords(); ++w)
      main += "    if (pc.word < " + U(w) + ") W(" + counts_ + ", state + " + U(w) + ") = 0xffffffffu;\n";
    main += "    W(" + counts_ + ", state + 5u) = 1u;\n  }\n";
    main += "  W(" + counts_ + ", state + pc.word) = chosen;\n";
    main += "  W(" + counts_ + ", state + 3u) = rank - below;\n  W(" + counts_ + ", state + 4u) = 0u;\n}\n";
    return Finish(group_.kernels[1].name, 64, main);
  }

  // Select kernel 3: each of a line's k candidates counts those that sort
  // before it: its place in the permutation.
  StatusOr<KernelSource> SelectRank() {
    const std::string K = U(c_.select_k), cand = U(c_.SelectCandidates(0)) + " + line * " + K;
    std::string main = "  if (inv >= " + U(c_.lines * c_.select_k) + ") return;\n";
    main += "  uint line = inv / " + K + ", i = inv % " + K + ";\n  uint own = W(" + counts_ + ", " + cand + " + i);\n";
    VKXLA_ASSIGN_OR_RETURN(const std::string mine, Composite("own", "a"));
    VKXLA_ASSIGN_OR_RETURN(const std::string other, Composite("o", "b"));
    main += mine + "  uint place = 0u;\n  for (uint q = 0u; q < " + K + "; ++q) {\n    uint o = W(" + counts_ + ", " + cand + " + q);\n" +
            other + "    if (" + CompositeLess("b", "a") + ") ++place;\n  }\n";
    main += "  W(" + perm_ + ", line * " + K + " + place) = own;\n}\n";
    return Finish(group_.kernels[3].name, 64, main);
  }

  // Select kernel 4: the histograms start at zero.
  StatusOr<KernelSource> SelectClear() {
    const std::string main = "  if (inv < " + U(c_.lines * 256) + ") W(" + counts_ + ", inv) = 0u;\n}\n";
    return Finish(group_.kernels[4].name, 256, main);
  }

  const SortConfig& c_;
  const Instruction& sort_;
  size_t key_count_ = 1;
  std::vector<GlslType> types_;
  std::string perm_, plane_, counts_, images_;
};

}  // namespace

StatusOr<KernelSource> BuildSortKernel(const Program& program, const FusionGroup& group, int kernel) {
  return SortKernelBuilder(program, group).Build(kernel);
}

}  // namespace vkxla
