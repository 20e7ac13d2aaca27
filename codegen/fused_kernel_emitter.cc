#include "codegen/fused_kernel_emitter.h"

#include "codegen/fused_emitter.h"
#include "codegen/glsl_index_arithmetic.h"
#include "codegen/glsl_types.h"
#include "ir/layout_index.h"
#include "ops/data_movement_reference.h"
#include "ops/op_traits.h"

namespace vkxla {

std::string U(int64_t v) { return std::to_string(v) + "u"; }

int64_t PowerOfTwoAtLeast(int64_t x) {
  int64_t p = 1;
  while (p < x) p <<= 1;
  return p;
}

// Name suffix of the real-math instance a type computes with.

std::string MathSuffix(ElementType t) {
  ElementType c = ComplexComponentType(t);
  return c == ElementType::kF64 ? "double" : "float";
}

Status FusedEmitter::Use(ElementType t, const Instruction& n) {
  ASSIGN_OR_RETURN(GlslType g, GlslTypeFor(t, target_, std::string(OpcodeName(n.opcode)) + " " + n.Describe()));
  (void)g;
  if (t == ElementType::kS64 || t == ElementType::kU64) int64_ = true;
  if (IsComplex(t)) {
    (t == ElementType::kC128 ? needs_.complex_f64 : needs_.complex_f32) = true;
  } else if (IsFloat(t)) {
    (t == ElementType::kF64 ? needs_.real_f64 : needs_.real_f32) = true;
  }
  return OkStatus();
}

std::string FusedEmitter::Temp(const std::string& type, const std::string& expr) {
  std::string name = "v" + std::to_string(next_temp_++);
  body_ += "    " + type + " " + name + " = " + expr + ";\n";
  return name;
}

std::string FusedEmitter::Helper(const std::string& name, const std::string& definition) {
  helpers_.emplace(name, definition);
  return name;
}

StatusOr<std::string> FusedEmitter::PhysicalIndex(const Shape& shape, const Layout& layout, const std::vector<std::string>& idx) {
  Shape placed = shape;
  placed.set_layout(layout);
  ASSIGN_OR_RETURN(TiledIndexMap map, TiledIndexMap::Create(placed));
  GlslIndexArithmetic a;
  return map.ToPhysical(idx, a);
}

Layout FusedEmitter::LayoutOf(const Instruction* n) const {
  if (n == root_) return out_layout_;
  if (std::optional<Layout> layout = buffer_layout_(n)) return *layout;
  return n->shape.layout_or_default();
}

std::string FusedEmitter::MemoKey(const Instruction* n, const std::vector<std::string>& idx) const {
  std::string key = std::to_string(reinterpret_cast<uintptr_t>(n)) + "@";
  for (const std::string& i : idx) key += i + ",";
  return key;
}

StatusOr<std::string> FusedEmitter::Value(const Instruction* n, const std::vector<std::string>& idx) {
  const std::string key = MemoKey(n, idx);
  auto it = memo_.find(key);
  if (it != memo_.end()) return it->second;
  std::string v;
  auto bound = bound_.find(n);
  if (bound != bound_.end()) {
    v = bound->second;
  } else if (std::optional<Layout> layout = n == root_ ? std::nullopt : buffer_layout_(n);
             layout && !(n->opcode == Opcode::kConstant && n->shape.element_count() == 1)) {
    ASSIGN_OR_RETURN(v, Load(n, *layout, idx));
  } else {
    ASSIGN_OR_RETURN(v, Compute(n, idx));
  }
  memo_[key] = v;
  return v;
}

StatusOr<std::vector<std::string>> FusedEmitter::TupleValue(const Instruction* n, const std::vector<std::string>& idx) {
  const std::string key = MemoKey(n, idx);
  auto it = tuple_memo_.find(key);
  if (it != tuple_memo_.end()) return it->second;
  std::vector<std::string> values;
  switch (n->opcode) {
    case Opcode::kTuple:
      for (const Instruction* o : n->operands) {
        ASSIGN_OR_RETURN(std::string v, Value(o, idx));
        values.push_back(v);
      }
      break;
    case Opcode::kScatter: {
      ASSIGN_OR_RETURN(values, Scatter(n, idx));
      break;
    }
    case Opcode::kReduceWindow: {
      ASSIGN_OR_RETURN(values, ReduceWindow(n, idx));
      break;
    }
    case Opcode::kSort: case Opcode::kTopK: {
      ASSIGN_OR_RETURN(values, SortResults(n, idx));
      break;
    }
    default:
      return Unimplemented(std::string(OpcodeName(n->opcode)) + " " + n->Describe() + " producing " +
                           n->shape.ToString() + ": tuple values of this op are not supported on Vulkan yet");
  }
  tuple_memo_[key] = values;
  return values;
}

StatusOr<std::vector<std::string>> FusedEmitter::Apply(const Computation& c, const std::vector<std::string>& args) {
  std::vector<Instruction*> params = c.parameters();
  if (params.size() != args.size())
    return Internal("computation " + c.name() + " applied to " + std::to_string(args.size()) + " values");
  // The same computation applied again binds other values: forget what
  // this application emits once it is done.
  const auto saved_memo = memo_;
  const auto saved_tuples = tuple_memo_;
  for (size_t i = 0; i < params.size(); ++i) bound_[params[i]] = args[i];
  std::vector<std::string> results;
  const Instruction* root = c.root();
  Status status = OkStatus();
  if (root->shape.IsTuple()) {
    StatusOr<std::vector<std::string>> r = TupleValue(root, {});
    if (r.ok()) results = *r; else status = r.status();
  } else {
    StatusOr<std::string> r = Value(root, {});
    if (r.ok()) results.push_back(*r); else status = r.status();
  }
  for (Instruction* p : params) bound_.erase(p);
  memo_ = saved_memo;
  tuple_memo_ = saved_tuples;
  RETURN_IF_ERROR(status);
  return results;
}

StatusOr<std::string> FusedEmitter::DynamicSize(const Instruction* n, int64_t d) {
  if (!n->shape.is_dynamic_dim(d)) return U(n->shape.dim(d));
  const std::string key = "size:" + MemoKey(n, {std::to_string(d)});
  if (auto it = memo_.find(key); it != memo_.end()) return it->second;
  std::string size;
  switch (n->opcode) {
    case Opcode::kParameter:
      if (d >= kMaxDynamicRank)
        return Unimplemented(n->Describe() + ": dynamic parameters of rank above " + std::to_string(kMaxDynamicRank));
      reads_parameter_sizes_ = true;
      size = Temp("uint", "min(W(dims_in, " + U(n->parameter_number * kMaxDynamicRank + d) + "), " + U(n->shape.dim(d)) + ")");
      break;
    case Opcode::kSetDimensionSize:
      if ((*n->dimensions)[0] == d) {
        ASSIGN_OR_RETURN(size, ClampedIndex(n->operands[1], {}, n->shape.dim(d)));
      } else {
        ASSIGN_OR_RETURN(size, DynamicSize(n->operands[0], d));
      }
      break;
    case Opcode::kDynamicReshape: {
      ASSIGN_OR_RETURN(size, ClampedIndex(n->operands[1 + d], {}, n->shape.dim(d)));
      break;
    }
    case Opcode::kTranspose: {
      ASSIGN_OR_RETURN(size, DynamicSize(n->operands[0], (*n->dimensions)[d]));
      break;
    }
    case Opcode::kBroadcast:
      for (size_t k = 0; k < n->dimensions->size(); ++k)
        if ((*n->dimensions)[k] == d) {
          ASSIGN_OR_RETURN(size, DynamicSize(n->operands[0], static_cast<int64_t>(k)));
        }
      break;
    default:
      for (const Instruction* o : n->operands)
        if (size.empty() && o->shape.IsArray() && o->shape.rank() == n->shape.rank() && o->shape.is_dynamic_dim(d)) {
          ASSIGN_OR_RETURN(size, DynamicSize(o, d));
        }
      break;
  }
  if (size.empty())
    return Unimplemented(std::string(OpcodeName(n->opcode)) + " " + n->Describe() + ": the run-time size of dimension " +
                         std::to_string(d) + " of " + n->shape.ToString() + " is not tracked through this op on Vulkan yet");
  memo_[key] = size;
  return size;
}

StatusOr<std::string> FusedEmitter::Load(const Instruction* n, const Layout& layout, const std::vector<std::string>& idx) {
  if (!n->shape.IsArray()) return Unimplemented(n->Describe() + ": tuple-shaped buffers are not supported yet");
  const ElementType t = n->shape.element_type();
  RETURN_IF_ERROR(Use(t, *n));
  ASSIGN_OR_RETURN(GlslType gt, GlslTypeFor(t, target_, n->Describe()));
  const std::string& ct = gt.compute;
  auto [it, inserted] = binding_.emplace(n, static_cast<int>(inputs_.size()));
  if (inserted) inputs_.push_back(n);
  ASSIGN_OR_RETURN(int bits, ElementStorageBits(t, layout));
  const std::string buffer = "in" + std::to_string(it->second);
  if (block_a_ < 0 && idx == root_index_ && n->shape.dims() == out_.dims() && layout == out_layout_ && bits == out_bits_) {
    // Same placement and element width as the output: this element sits
    // in the same word of the invocation's vector, loaded once up front.
    // (Block mode reads such a buffer as rows of its block instead.)
    vector_loads_.insert(buffer);
    std::vector<std::string> words;
    for (int k = 0; k < WordsPerElement(t); ++k) words.push_back(buffer + "_v[ew + " + U(k) + "]");
    return Temp(ct, DecodeWords(t, words, "es", bits));
  }
  // In block mode, a buffer read at a permutation of the root index (its
  // dim d at output dim perm[d]) whose unit-stride dim runs along the block
  // is read as four whole vectors.
  std::vector<int64_t> perm(idx.size(), -1);
  bool permuted = block_a_ >= 0 && idx.size() == root_index_.size() && bits == 32 && WordsPerElement(t) == 1;
  for (size_t d = 0; permuted && d < idx.size(); ++d) {
    for (size_t k = 0; k < root_index_.size(); ++k)
      if (idx[d] == root_index_[k]) perm[d] = static_cast<int64_t>(k);
    permuted = perm[d] >= 0;
  }
  if (permuted) {
    Shape placed = n->shape;
    placed.set_layout(layout);
    ASSIGN_OR_RETURN(TiledIndexMap map, TiledIndexMap::Create(placed));
    const int64_t unit = map.has_padding() ? -1 : map.UnitStrideDimension(block_);
    const int64_t along = unit < 0 ? -1 : perm[unit];
    if (along == block_b_ || along == block_a_) {
      // block_ rows cover the block; the element is one word of them.
      const bool rows_along_b = along == block_b_;
      const std::string array = buffer + (rows_along_b ? "_r" : "_c");
      const int64_t step_out = rows_along_b ? block_a_ : block_b_;
      int64_t step = 0;
      for (size_t d = 0; d < perm.size(); ++d)
        if (perm[d] == step_out) step = static_cast<int64_t>(d);
      GlslIndexArithmetic a;
      BlockRows rows;
      rows.loads = "  uvec4 " + array + "[" + std::to_string(block_ * block_ / 4) + "];\n";
      for (int k = 0; k < block_; ++k) {
        std::vector<std::string> at(idx.size());
        for (size_t d = 0; d < idx.size(); ++d) at[d] = block_base_[perm[d]];
        at[step] = a.Add(at[step], a.Constant(k));
        ReadBlockRow(buffer, map.ToPhysical(at, a), array, k, rows);
      }
      block_rows_[array] = rows;
      const std::string word = rows_along_b ? BlockWord(array, "ka", "kb") : BlockWord(array, "kb", "ka");
      return Temp(ct, DecodeWords(t, {word}, "0u", bits));
    }
  }
  ASSIGN_OR_RETURN(std::string p, PhysicalIndex(n->shape, layout, idx));
  return Temp(ct, LoadExpression(t, buffer, p, bits));
}

StatusOr<std::string> FusedEmitter::Compute(const Instruction* n, const std::vector<std::string>& idx) {
  const ElementType t = n->shape.element_type();
  if (n->shape.IsArray()) RETURN_IF_ERROR(Use(t, *n));
  ASSIGN_OR_RETURN(GlslType gt, GlslTypeFor(t, target_, n->Describe()));
  const std::string& ct = gt.compute;
  switch (n->opcode) {
    case Opcode::kConstant:
      if (n->shape.rank() == 0 || n->shape.element_count() == 1) return GlslLiteral(n->literal->Get(0));
      [[fallthrough]];
    case Opcode::kParameter: {
      std::optional<Layout> layout = buffer_layout_(n);
      if (!layout) return Internal(n->Describe() + " has no buffer");
      return Load(n, *layout, idx);
    }
    case Opcode::kGetTupleElement: {
      ASSIGN_OR_RETURN(std::vector<std::string> values, TupleValue(n->operands[0], idx));
      return values[n->tuple_index];
    }
    case Opcode::kDynamicSlice: case Opcode::kDynamicUpdateSlice: case Opcode::kGather:
      return IndexElements(n, idx);
    case Opcode::kGetDimensionSize: {
      ASSIGN_OR_RETURN(std::string size, DynamicSize(n->operands[0], (*n->dimensions)[0]));
      return Temp("int", "int(" + size + ")");
    }
    case Opcode::kSetDimensionSize:
      return Value(n->operands[0], idx);
    case Opcode::kDynamicReshape: {
      // Row-major position among the result's run-time sizes, found among
      // the operand's (each index kept inside the bound).
      const Instruction* x = n->operands[0];
      std::string linear = "0u";
      for (int64_t d = 0; d < n->shape.rank(); ++d) {
        ASSIGN_OR_RETURN(std::string size, DynamicSize(n, d));
        linear = Temp("uint", "(" + linear + ") * " + size + " + " + idx[d]);
      }
      std::vector<std::string> in(x->shape.rank());
      for (int64_t d = x->shape.rank() - 1; d >= 0; --d) {
        ASSIGN_OR_RETURN(std::string size, DynamicSize(x, d));
        const std::string extent = Temp("uint", "max(" + size + ", 1u)");
        in[d] = Temp("uint", "min(" + linear + " % " + extent + ", " + U(std::max<int64_t>(x->shape.dim(d) - 1, 0)) + ")");
        linear = Temp("uint", linear + " / " + extent);
      }
      return Value(x, in);
    }
    case Opcode::kScatter: {
      ASSIGN_OR_RETURN(std::vector<std::string> values, Scatter(n, idx));
      return values[0];
    }
    case Opcode::kReduceWindow: {
      ASSIGN_OR_RETURN(std::vector<std::string> values, ReduceWindow(n, idx));
      return values[0];
    }
    case Opcode::kSelectAndScatter:
      return SelectAndScatter(n, idx);
    case Opcode::kSort: {
      ASSIGN_OR_RETURN(std::vector<std::string> values, SortResults(n, idx));
      return values[0];
    }
    case Opcode::kMap: {
      std::vector<std::string> args;
      for (const Instruction* o : n->operands) {
        ASSIGN_OR_RETURN(std::string v, Value(o, idx));
        args.push_back(v);
      }
      ASSIGN_OR_RETURN(std::vector<std::string> r, Apply(*n->called_computations[0].second, args));
      return Temp(ct, r[0]);
    }
    case Opcode::kIota: {
      ASSIGN_OR_RETURN(std::string v, Convert(idx[n->iota_dimension], ElementType::kU32, t));
      return Temp(ct, v);
    }
    case Opcode::kBroadcast: {
      const Instruction* x = n->operands[0];
      std::vector<std::string> in_idx;
      for (size_t d = 0; d < n->dimensions->size(); ++d)
        in_idx.push_back(x->shape.dim(d) == 1 ? "0u" : idx[(*n->dimensions)[d]]);
      return Value(x, in_idx);
    }
    case Opcode::kBitcastConvert:
      return Bitcast(n, idx);
    case Opcode::kCopy:
      return Value(n->operands[0], idx);
    case Opcode::kReshape: case Opcode::kTranspose: case Opcode::kReverse: case Opcode::kSlice:
    case Opcode::kConcatenate: case Opcode::kPad:
      return MoveElements(n, idx);
    case Opcode::kBitcast:
      return Reinterpret(n, idx);
    default: break;
  }
  if (!IsElementwise(n->opcode))
    return Unimplemented(std::string(OpcodeName(n->opcode)) + " " + n->Describe() + ": not implemented on Vulkan yet");
  std::vector<std::string> ops;
  for (const Instruction* o : n->operands) {
    ASSIGN_OR_RETURN(std::string v, Value(o, o->shape.rank() == 0 ? std::vector<std::string>{} : idx));
    RETURN_IF_ERROR(Use(o->shape.element_type(), *n));
    ops.push_back(v);
  }
  std::string expr;
  if (n->opcode == Opcode::kSelect) {
    expr = "(" + ops[0] + " ? " + ops[1] + " : " + ops[2] + ")";
  } else if (n->opcode == Opcode::kClamp) {
    if (t == ElementType::kPred) expr = "((" + ops[1] + " || " + ops[0] + ") && " + ops[2] + ")";
    else if (IsFloat(t)) expr = "min_" + MathSuffix(t) + "(max_" + MathSuffix(t) + "(" + ops[1] + ", " + ops[0] + "), " + ops[2] + ")";
    else expr = "min(max(" + ops[1] + ", " + ops[0] + "), " + ops[2] + ")";
  } else if (n->operands.size() == 1) {
    ASSIGN_OR_RETURN(expr, Unary(*n, ops[0]));
  } else {
    ASSIGN_OR_RETURN(expr, Binary(*n, ops[0], ops[1]));
  }
  if (n->opcode != Opcode::kConvert && n->opcode != Opcode::kCompare && n->opcode != Opcode::kIsFinite)
    expr = NormalizeExpression(t, expr);
  return Temp(ct, expr);
}

StatusOr<KernelSource> FusedEmitter::Emit(const Instruction& root, const Shape& out) {
  if (root.opcode == Opcode::kReduce || (root.opcode == Opcode::kGetTupleElement && root.operands[0]->opcode == Opcode::kReduce))
    return EmitReduce(root, out);
  if (root.opcode == Opcode::kScan || (root.opcode == Opcode::kGetTupleElement && root.operands[0]->opcode == Opcode::kScan))
    return EmitScan(root, out);
  root_ = &root;
  out_ = out;
  out_layout_ = out.layout_or_default();
  const ElementType t = out.element_type();
  RETURN_IF_ERROR(Use(t, root));
  ASSIGN_OR_RETURN(GlslType gt, GlslTypeFor(t, target_, root.Describe()));
  ASSIGN_OR_RETURN(out_bits_, ElementStorageBits(t, out_layout_));
  ASSIGN_OR_RETURN(TiledIndexMap out_map, TiledIndexMap::Create(out));
  const int64_t physical = out_map.physical_element_count();
  if (physical >= (int64_t{1} << 32))
    return Unimplemented(root.Describe() + ": arrays of 2^32 elements or more are not supported (" + out.ToString() + ")");
  // Each invocation owns one uvec4 of the output, `per_vector` physical
  // elements, and loops over them; ew/es name the current element's word in
  // the vector and its slot within the word.
  const int per_word = out_bits_ >= 32 ? 1 : 32 / out_bits_, words_per_element = WordsPerElement(t);
  const int per_vector = per_word * 4 / words_per_element;
  const uint64_t vectors = static_cast<uint64_t>((physical + per_vector - 1) / per_vector);

  // Block mode when the output moves along one dim in vectors and some
  // operand along another: a transpose in registers keeps every load and
  // store a whole uvec4.
  if (per_word == 1 && words_per_element == 1 && !out_map.has_padding() && out.is_static()) {
    const int64_t unit = out_map.UnitStrideDimension(4);
    std::set<const Instruction*> seen;
    if (unit >= 0) {
      std::vector<int64_t> identity(out.rank());
      for (int64_t d = 0; d < out.rank(); ++d) identity[d] = d;
      const int64_t b = FindTransposedOperand(&root, unit, identity, seen);
      if (b >= 0) {
        block_a_ = unit;
        block_b_ = b;
        return EmitBlocked(root, out_map);
      }
    }
  }
  // A result with dynamic dims also reports their sizes (invocation 0 writes
  // them); computed before the element loop so they are in scope after it.
  std::string write_sizes;
  for (int64_t d = 0; d < out.rank(); ++d) {
    if (!out.is_dynamic_dim(d)) continue;
    ASSIGN_OR_RETURN(std::string size, DynamicSize(&root, d));
    write_sizes += "    W(dims_out, " + U(d) + ") = " + size + ";\n";
  }
  if (!write_sizes.empty()) writes_sizes_ = true;
  const std::string prelude = body_;
  body_.clear();
  // The logical index of physical element p; padding elements have none.
  GlslIndexArithmetic a;
  std::string valid;
  root_index_ = out_map.FromPhysical<GlslIndexArithmetic>("p", a, valid);
  std::string decompose;
  for (int64_t d = 0; d < out.rank(); ++d) {
    if (root_index_[d].find_first_not_of("0123456789u") == std::string::npos) continue;  // a constant
    decompose += "      uint i" + std::to_string(d) + " = " + root_index_[d] + ";\n";
    root_index_[d] = "i" + std::to_string(d);
  }
  ASSIGN_OR_RETURN(std::string v, Value(&root, root_index_));
  std::string guard = physical % per_vector == 0 ? "" : "p < " + U(physical);
  if (valid != "true") guard += (guard.empty() ? "" : " && ") + valid;

  std::string body = "  for (uint e = 0u; e < " + U(per_vector) + "; ++e) {\n";
  body += "    uint p = inv * " + U(per_vector) + " + e;\n" + VectorSlot(per_vector);
  if (!guard.empty()) body += "    if (" + guard + ") {\n";
  body += decompose + body_;
  body += StoreElement(t, v);
  if (!guard.empty()) body += "    }\n";
  body += "  }\n";

  KernelSource k;
  k.name = "fusion_" + root.name;
  k.inputs = inputs_;
  k.reads_parameter_sizes = reads_parameter_sizes_;
  k.writes_sizes = writes_sizes_;
  k.output = out;
  k.invocations = vectors;
  k.local_size = 256;
  std::string src = "  if (inv >= " + U(vectors) + ") return;\n";
  for (const std::string& b : vector_loads_) src += "  uvec4 " + b + "_v = " + ReadVector(b, "inv") + ";\n";
  src += prelude;
  if (writes_sizes_) src += "  if (inv == 0u) {\n" + write_sizes + "  }\n";
  src += "  uvec4 outv = uvec4(0u);\n" + body + "  " + WriteVector("out0", "inv", "outv") + "\n}\n";
  k.glsl = Prologue(k.local_size, k.name) + src;
  return k;
}

std::string FusedEmitter::ReadVector(const std::string& buffer, const std::string& index) {
  if (!(target_.cpu && target_.int64)) return buffer + ".v[" + index + "]";
  wide_buffers_.insert(buffer);
  return "widen(" + buffer + "w.v[" + index + "])";
}

std::string FusedEmitter::WriteVector(const std::string& buffer, const std::string& index, const std::string& value) {
  if (!(target_.cpu && target_.int64)) return buffer + ".v[" + index + "] = " + value + ";";
  wide_buffers_.insert(buffer);
  return buffer + "w.v[" + index + "] = narrow(" + value + ");";
}

std::string FusedEmitter::Prologue(uint32_t local_size, const std::string& name) const {
  std::string src = "#version 450\n";
  const bool wide = !wide_buffers_.empty() || !quad_buffers_.empty();
  if (int64_ || wide) src += "#extension GL_ARB_gpu_shader_int64 : require\n";
  src += "// kernel " + name + ": " + out_.ToString() + "\n";
  src += "layout(local_size_x = " + std::to_string(local_size) + ") in;\n";
  src += "#define W(b, i) b.v[(i) >> 2u][(i) & 3u]\n";
  for (size_t i = 0; i < inputs_.size(); ++i) {
    const std::string b = std::to_string(i);
    src += "layout(std430, set = 0, binding = " + b + ") readonly buffer In" + b + " { uvec4 v[]; } in" + b + ";\n";
    if (wide_buffers_.count("in" + b))
      src += "layout(std430, set = 0, binding = " + b + ") readonly buffer In" + b + "W { u64vec2 v[]; } in" + b + "w;\n";
    if (quad_buffers_.count("in" + b))
      src += "layout(std430, set = 0, binding = " + b + ") readonly buffer In" + b + "Q { u64vec4 v[]; } in" + b + "q;\n";
  }
  size_t binding = inputs_.size();
  if (reads_parameter_sizes_)
    src += "layout(std430, set = 0, binding = " + std::to_string(binding++) + ") readonly buffer ParameterSizes { uvec4 v[]; } dims_in;\n";
  const std::string access = out_readable_ ? "" : "writeonly ";
  src += "layout(std430, set = 0, binding = " + std::to_string(binding) + ") " + access + "buffer Out0 { uvec4 v[]; } out0;\n";
  if (wide_buffers_.count("out0"))
    src += "layout(std430, set = 0, binding = " + std::to_string(binding) + ") " + access + "buffer Out0W { u64vec2 v[]; } out0w;\n";
  if (quad_buffers_.count("out0"))
    src += "layout(std430, set = 0, binding = " + std::to_string(binding) + ") " + access + "buffer Out0Q { u64vec4 v[]; } out0q;\n";
  ++binding;
  if (wide)
    src += "uvec4 widen(u64vec2 w) { return uvec4(unpackUint2x32(w.x), unpackUint2x32(w.y)); }\n"
           "u64vec2 narrow(uvec4 v) { return u64vec2(packUint2x32(v.xy), packUint2x32(v.zw)); }\n";
  if (writes_sizes_)
    src += "layout(std430, set = 0, binding = " + std::to_string(binding++) + ") writeonly buffer OutSizes { uvec4 v[]; } dims_out;\n";
  src += ShaderLibrarySource(needs_, target_.float64);
  for (const auto& [helper, def] : helpers_) src += def;
  src += shared_;
  src += "void main() {\n  uint inv = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * " +
         U(local_size) + ";\n";
  return src;
}

int64_t FusedEmitter::FindTransposedOperand(const Instruction* n, int64_t a, const std::vector<int64_t>& perm,
                                            std::set<const Instruction*>& seen) {
  if (!seen.insert(n).second || !n->shape.IsArray() || n->shape.rank() != out_.rank()) return -1;
  for (int64_t d = 0; d < n->shape.rank(); ++d)
    if (n->shape.dim(d) != out_.dim(perm[d])) return -1;
  std::optional<Layout> buffer = n == root_ ? std::nullopt : buffer_layout_(n);
  if (buffer && n->shape.element_count() > 1) {
    Shape placed = n->shape;
    placed.set_layout(*buffer);
    auto map = TiledIndexMap::Create(placed);
    auto bits = ElementStorageBits(n->shape.element_type(), placed.layout_or_default());
    if (!map.ok() || !bits.ok() || *bits != 32 || map->has_padding()) return -1;
    const int64_t unit = map->UnitStrideDimension(4);
    if (unit < 0 || perm[unit] == a) return -1;
    transposed_operand_tiled_ = map->is_tiled();
    return perm[unit];
  }
  if (n->opcode == Opcode::kTranspose) {
    // Result dim i is operand dim dimensions[i].
    std::vector<int64_t> inner(perm.size());
    for (size_t i = 0; i < perm.size(); ++i) inner[(*n->dimensions)[i]] = perm[i];
    return FindTransposedOperand(n->operands[0], a, inner, seen);
  }
  // Only ops that read their operands at the same index pass the block on.
  if (!IsElementwise(n->opcode) && n->opcode != Opcode::kCopy) return -1;
  if (n->opcode == Opcode::kBitcastConvert && BitWidth(n->shape.element_type()) != BitWidth(n->operands[0]->shape.element_type()))
    return -1;
  for (const Instruction* o : n->operands) {
    const int64_t b = FindTransposedOperand(o, a, perm, seen);
    if (b >= 0) return b;
  }
  return -1;
}

StatusOr<KernelSource> FusedEmitter::EmitBlocked(const Instruction& root, const TiledIndexMap& out_map) {
  const ElementType t = root.shape.element_type();
  const int64_t a_dim = block_a_, b_dim = block_b_;
  if (out_.dim(a_dim) % 4 != 0 || out_.dim(b_dim) % 4 != 0)
    return Internal("block mode needs dims divisible by 4");
  // On a CPU driver, a transpose into or out of a tiled layout moves 8x8
  // blocks as 32-byte u64vec4 words, both sides in runs of 256 bytes
  // (llvmpipe: 0.89-0.92 of the stream kernel for f32[4096,4096] {1,0} <->
  // {0,1:T(8,128)}, against 0.67-0.70 with 4x4 blocks, whose 16-byte pieces
  // of many tile rows defeat the CPU's prefetch). Plain transposes keep 4x4
  // blocks (1.1-1.2 there, 0.73 with 8x8). The body is repeated per
  // element, so only a few cheap ops qualify: 64 copies of a math-library
  // chain (tanh, exp, atan2) take llvmpipe minutes to compile, and such
  // kernels are bound by arithmetic, not memory.
  const bool tiled = transposed_operand_tiled_ || out_map.is_tiled();
  int budget = 16;
  if (target_.cpu && target_.int64 && tiled && out_map.UnitStrideDimension(8) == a_dim && out_.dim(a_dim) % 8 == 0 &&
      out_.dim(b_dim) % 8 == 0 && CheapToRepeat(&root, budget))
    block_ = 8;
  const int64_t e = block_;
  // Block coordinates, as digits of the invocation id, fastest first; each
  // digit adds digit * scale to its dim's block origin; the other dims
  // follow, minor-most logical first. a goes fastest (consecutive
  // invocations store consecutive output vectors), except on a CPU driver
  // reading a tiled operand into an untiled output: there b, the tiled
  // array's unit-stride dim, so the loads step through a tile in order
  // (0.56 against 0.45 of the stream kernel with 4x4 blocks).
  const bool b_fastest = target_.cpu && transposed_operand_tiled_ && !out_map.is_tiled();
  const int64_t fast = b_fastest ? b_dim : a_dim, slow = b_fastest ? a_dim : b_dim;
  struct Digit {
    int64_t dim, extent, scale;
  };
  std::vector<Digit> digits;
  if (block_ == 8) {
    // 8 blocks of the fast dim (half a T(8,128) tile row), 8 of the slow
    // one (256 bytes of each untiled row), 4 more of the fast; the
    // workgroups then walk the slow dim. Best of about 20 orders tried.
    if (out_.dim(fast) % (e * 32) == 0 && out_.dim(slow) % (e * 8) == 0)
      digits = {{fast, 8, e}, {slow, 8, e}, {fast, 4, e * 8}, {slow, out_.dim(slow) / (e * 8), e * 8},
                {fast, out_.dim(fast) / (e * 32), e * 32}};
  } else {
    // A workgroup's 256 invocations cover ta x (256 / ta) blocks, so the
    // strided side reuses what it brings into cache: on a CPU driver ta = 4
    // (one 64-byte line of output per row; best of 2..256 on lavapipe, 0.97
    // of the stream kernel against 0.5 at 16), on a GPU 16 (256 contiguous
    // bytes per row for coalescing).
    const int64_t ta = target_.cpu ? 4 : 16, tb = 256 / ta;
    if (out_.dim(fast) % (e * ta) == 0 && out_.dim(slow) % (e * tb) == 0)
      digits = {{fast, ta, e}, {slow, tb, e}, {fast, out_.dim(fast) / (e * ta), e * ta},
                {slow, out_.dim(slow) / (e * tb), e * tb}};
  }
  if (digits.empty()) digits = {{fast, out_.dim(fast) / e, e}, {slow, out_.dim(slow) / e, e}};
  for (int64_t d = out_.rank() - 1; d >= 0; --d)
    if (d != a_dim && d != b_dim) digits.push_back({d, out_.dim(d), 1});
  GlslIndexArithmetic a;
  std::vector<std::string> terms(out_.rank());
  int64_t stride = 1, blocks = 1;
  for (const Digit& g : digits) {
    std::string c = a.DivConstant("inv", stride);
    // A top digit of power-of-two extent is masked too: the bound lets the
    // driver's compiler keep 32-bit addressing (8x8 relayout on lavapipe:
    // 0.84 of the stream kernel against 0.80).
    const bool power_of_two = (g.extent & (g.extent - 1)) == 0;
    if (power_of_two || stride * g.extent < out_.element_count() / (e * e)) c = a.ModConstant(c, g.extent);
    c = a.MulConstant(c, g.scale);
    terms[g.dim] = terms[g.dim].empty() ? c : a.Add(terms[g.dim], c);
    stride *= g.extent;
    blocks *= g.extent;
  }
  std::string decompose;
  block_base_.assign(out_.rank(), "0u");
  for (int64_t d = 0; d < out_.rank(); ++d) {
    decompose += "  uint b" + std::to_string(d) + " = " + (terms[d].empty() ? "0u" : terms[d]) + ";\n";
    block_base_[d] = "b" + std::to_string(d);
  }
  root_index_ = block_base_;
  root_index_[a_dim] = "(b" + std::to_string(a_dim) + " + ka)";
  root_index_[b_dim] = "(b" + std::to_string(b_dim) + " + kb)";
  ASSIGN_OR_RETURN(std::string v, Value(&root, root_index_));

  KernelSource k;
  k.name = "fusion_" + root.name + "_block" + std::to_string(e) + "x" + std::to_string(e);
  k.inputs = inputs_;
  k.output = out_;
  k.invocations = static_cast<uint64_t>(blocks);
  k.local_size = 256;
  std::string src = "  if (inv >= " + U(blocks) + ") return;\n" + decompose;
  for (const auto& [array, rows] : block_rows_) src += rows.loads;
  for (const auto& [array, rows] : block_rows_) src += rows.unpacks;
  src += "  uvec4 outv[" + std::to_string(e * e / 4) + "];\n";
  // No [[unroll]]: spirv-opt's unrolling loses the NoContraction that the
  // math library's error-free transforms need (division stops being exact).
  // The driver unrolls a 16-step loop itself (unrolling 4x4 by hand gained
  // nothing on lavapipe); 64 steps it leaves as a loop that indexes the
  // block's arrays dynamically (0.24 of the stream kernel), so 8x8 blocks
  // repeat the body per element with constant ka, kb.
  const std::string store = "    " + BlockWord("outv", "kb", "ka") + " = " + EncodeToBits(t, v) + ";\n";
  if (e == 4) {
    src += "  for (uint e = 0u; e < 16u; ++e) {\n    uint ka = e & 3u, kb = e >> 2u;\n" + body_ + store + "  }\n";
  } else {
    for (int kb = 0; kb < e; ++kb)
      for (int ka = 0; ka < e; ++ka)
        src += "  {\n    const uint ka = " + U(ka) + ", kb = " + U(kb) + ";\n" + body_ + store + "  }\n";
  }
  for (int kb = 0; kb < e; ++kb) {
    std::vector<std::string> at = block_base_;
    at[b_dim] = a.Add(at[b_dim], a.Constant(kb));
    src += WriteBlockRow(out_map.ToPhysical(at, a), "outv", kb);
  }
  src += "}\n";
  k.glsl = Prologue(k.local_size, k.name) + src;
  return k;
}

bool FusedEmitter::CheapToRepeat(const Instruction* n, int& budget) const {
  if (n != root_ && buffer_layout_(n)) return true;  // read from its own buffer
  if (--budget < 0) return false;
  switch (n->opcode) {
    case Opcode::kParameter: case Opcode::kConstant: case Opcode::kIota: case Opcode::kBroadcast:
    case Opcode::kCopy: case Opcode::kTranspose: case Opcode::kReshape: case Opcode::kBitcast:
    case Opcode::kBitcastConvert: case Opcode::kConvert: case Opcode::kAdd: case Opcode::kSubtract:
    case Opcode::kMultiply: case Opcode::kNegate: case Opcode::kAbs: case Opcode::kMaximum: case Opcode::kMinimum:
    case Opcode::kSelect: case Opcode::kCompare: case Opcode::kClamp: case Opcode::kAnd: case Opcode::kOr:
    case Opcode::kXor: case Opcode::kNot: case Opcode::kShiftLeft: case Opcode::kShiftRightLogical:
    case Opcode::kShiftRightArithmetic:
      break;
    default:
      return false;
  }
  for (const Instruction* o : n->operands)
    if (!CheapToRepeat(o, budget)) return false;
  return true;
}

void FusedEmitter::ReadBlockRow(const std::string& buffer, const std::string& at, const std::string& array, int row,
                                BlockRows& rows) {
  const std::string r = std::to_string(row);
  if (block_ == 4) {
    rows.loads += "  " + array + "[" + r + "] = " + ReadVector(buffer, at + " >> 2u") + ";\n";
    return;
  }
  quad_buffers_.insert(buffer);
  const std::string word = array + "_w" + r;
  rows.loads += "  u64vec4 " + word + " = " + buffer + "q.v[" + at + " >> 3u];\n";
  rows.unpacks += "  " + array + "[" + std::to_string(2 * row) + "] = widen(" + word + ".xy); " + array + "[" +
                  std::to_string(2 * row + 1) + "] = widen(" + word + ".zw);\n";
}

std::string FusedEmitter::WriteBlockRow(const std::string& at, const std::string& array, int row) {
  if (block_ == 4) return "  " + WriteVector("out0", at + " >> 2u", array + "[" + std::to_string(row) + "]") + "\n";
  quad_buffers_.insert("out0");
  return "  out0q.v[" + at + " >> 3u] = u64vec4(narrow(" + array + "[" + std::to_string(2 * row) + "]), narrow(" +
         array + "[" + std::to_string(2 * row + 1) + "]));\n";
}

std::string FusedEmitter::BlockWord(const std::string& array, const std::string& row, const std::string& column) const {
  if (block_ == 4) return array + "[" + row + "][" + column + "]";
  return array + "[" + row + " * 2u + (" + column + " >> 2u)][" + column + " & 3u]";
}

bool NeedsOwnKernel(const Instruction& inst) {
  switch (inst.opcode) {
    case Opcode::kScatter: case Opcode::kReduceWindow: case Opcode::kSelectAndScatter: case Opcode::kReduce:
    case Opcode::kScan:
      return true;
    default:
      return false;
  }
}

StatusOr<KernelSource> EmitFusedKernel(const Instruction& root, const Shape& output_with_layout,
                                       const BufferLayoutFn& buffer_layout, const TargetFeatures& target,
                                       const PlannedBufferFn& planned_buffer) {
  FusedEmitter e(target, buffer_layout, planned_buffer);
  return e.Emit(root, output_with_layout);
}

}  // namespace vkxla
