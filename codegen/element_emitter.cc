#include "codegen/element_emitter.h"

#include <algorithm>

#include "codegen/glsl_index_arithmetic.h"
#include "codegen/glsl_types.h"
#include "ir/layout_index.h"
#include "ops/control_flow.h"
#include "ops/op_traits.h"
#include "plan/fusion.h"
#include "plan/planner.h"

namespace vkxla {

std::string U(int64_t v) { return std::to_string(v) + "u"; }

int64_t PowerOfTwoAtLeast(int64_t x) {
  int64_t p = 1;
  while (p < x) p <<= 1;
  return p;
}

std::string MathSuffix(ElementType t) {
  ElementType c = ComplexComponentType(t);
  return c == ElementType::kF64 ? "double" : "float";
}

ElementEmitter::ElementEmitter(const Program& program, const FusionGroup& group)
    : program_(program), group_(group), target_(program.target), materialized_(GroupMaterialized(program, group)) {}

Status ElementEmitter::Use(ElementType t, const Instruction& n) {
  return UseType(t, std::string(OpcodeName(n.opcode)) + " " + n.Describe());
}

Status ElementEmitter::UseType(ElementType t, const std::string& context) {
  VKXLA_ASSIGN_OR_RETURN(GlslType g, GlslTypeFor(t, target_, context));
  (void)g;
  if (t == ElementType::kS64 || t == ElementType::kU64) int64_ = true;
  if (IsComplex(t)) {
    (t == ElementType::kC128 ? needs_.complex_f64 : needs_.complex_f32) = true;
  } else if (IsFloat(t)) {
    (t == ElementType::kF64 ? needs_.real_f64 : needs_.real_f32) = true;
  }
  return OkStatus();
}

std::string ElementEmitter::Temp(const std::string& type, const std::string& expr) {
  std::string name = "v" + std::to_string(next_temp_++);
  body_ += "    " + type + " " + name + " = " + expr + ";\n";
  return name;
}

std::string ElementEmitter::Helper(const std::string& name, const std::string& definition) {
  if (helpers_.emplace(name, definition).second) helper_order_.push_back(name);
  return name;
}

StatusOr<std::string> ElementEmitter::PhysicalIndex(const Shape& shape, const Layout& layout,
                                                    const std::vector<std::string>& idx) {
  Shape placed = shape;
  placed.set_layout(layout);
  VKXLA_ASSIGN_OR_RETURN(TiledIndexMap map, TiledIndexMap::Create(placed));
  GlslIndexArithmetic a;
  return map.ToPhysical(idx, a);
}

Layout ElementEmitter::LayoutOf(const Instruction* n) const {
  if (n == root_) return out_layout_;
  if (std::optional<Layout> layout = materialized_(n)) return *layout;
  return n->shape.layout_or_default();
}

std::string ElementEmitter::MemoKey(const Instruction* n, const std::vector<std::string>& idx) const {
  std::string key = std::to_string(reinterpret_cast<uintptr_t>(n)) + "@";
  for (const std::string& i : idx) key += i + ",";
  return key;
}

std::string ElementEmitter::BindBuffer(int buffer, Access access, const std::string& name) {
  for (Binding& b : bindings_)
    if (b.buffer == buffer && !b.texel) {
      if (b.access != access) b.access = Access::kReadWrite;
      return b.name;
    }
  bindings_.push_back({buffer, name, access});
  return name;
}

std::string ElementEmitter::BindReads(int buffer, const std::string& prefix) {
  const BufferDecl& decl = program_.buffers[buffer];
  bool output = false;
  for (const GroupOutput& o : group_.outputs) output = output || o.buffer == buffer;
  if (target_.max_texel_buffer_elements == 0 || output ||
      (decl.bytes + 15) / 16 > std::min<uint64_t>(target_.max_texel_buffer_elements, INT32_MAX) || decl.bytes == 0)
    return BindBuffer(buffer, Access::kRead, prefix);
  for (const Binding& b : bindings_)
    if (b.buffer == buffer && b.texel) return b.name;
  bindings_.push_back({buffer, prefix + "t", Access::kRead, true});
  return bindings_.back().name;
}

std::string ElementEmitter::BindOutput(size_t output, Access access) {
  return BindBuffer(group_.outputs[output].buffer, access, "out" + std::to_string(output));
}

StatusOr<std::string> ElementEmitter::Value(const Instruction* n, const std::vector<std::string>& idx) {
  const std::string key = MemoKey(n, idx);
  auto it = memo_.find(key);
  if (it != memo_.end()) return it->second;
  std::string v;
  auto bound = bound_.find(n);
  if (n == address_value_) {
    const ValueRef ref = ValueRef::Of(n);
    std::optional<Layout> layout = materialized_(n);
    if (!layout) return Internal(n->Describe() + ": an addressed value has no buffer");
    VKXLA_ASSIGN_OR_RETURN(std::string p, PhysicalIndex(ref.shape(), *layout, idx));
    v = Temp("uint", p);
  } else if (bound != bound_.end()) {
    v = bound->second;
  } else if (std::optional<Layout> layout = n == root_ ? std::nullopt : materialized_(n);
             layout && !(n->opcode == Opcode::kConstant && n->shape.element_count() == 1)) {
    const ValueRef ref = ValueRef::Of(n);
    VKXLA_ASSIGN_OR_RETURN(v, LoadBuffer(program_.value_buffer.at(ref), ref.shape(), *layout, idx));
  } else {
    std::optional<std::string> whole;
    if (vector_context_ && function_depth_ == 0 && idx == vector_context_->index && n->shape.IsArray() &&
        n->shape.dims() == vector_context_->shape.dims()) {
      VKXLA_ASSIGN_OR_RETURN(whole, LoadThroughIndexMaps(n));
    }
    if (whole) {
      v = *whole;
    } else {
      VKXLA_ASSIGN_OR_RETURN(v, Compute(n, idx));
    }
  }
  memo_[key] = v;
  return v;
}

StatusOr<std::string> ElementEmitter::ValueOf(const ValueRef& v, const std::vector<std::string>& idx) {
  if (v.index < 0) return Value(v.inst, idx);
  if (v.inst->opcode == Opcode::kTuple) return Value(v.inst->operands[v.index], idx);
  VKXLA_ASSIGN_OR_RETURN(std::vector<std::string> values, TupleValue(v.inst, idx));
  return values[v.index];
}

StatusOr<std::vector<std::string>> ElementEmitter::TupleValue(const Instruction* n, const std::vector<std::string>& idx) {
  const std::string key = MemoKey(n, idx);
  auto it = tuple_memo_.find(key);
  if (it != tuple_memo_.end()) return it->second;
  std::vector<std::string> values;
  if (ForwardsOperand(*n)) return TupleValue(n->operands[0], idx);
  switch (n->opcode) {
    case Opcode::kTuple:
      for (const Instruction* o : n->operands) {
        VKXLA_ASSIGN_OR_RETURN(std::string v, Value(o, idx));
        values.push_back(v);
      }
      break;
    case Opcode::kSort: case Opcode::kTopK: {
      VKXLA_ASSIGN_OR_RETURN(values, SortResults(n, idx));
      break;
    }
    default:
      // Elements of other tuple-shaped values live in buffers of their own.
      for (size_t k = 0; k < n->shape.tuple_shapes().size(); ++k) {
        const ValueRef ref{n, static_cast<int64_t>(k)};
        auto b = program_.value_buffer.find(ref);
        if (b == program_.value_buffer.end() || group_.OutputOf(ref) >= 0) {
          values.push_back("");  // not read here
          continue;
        }
        const BufferDecl& d = program_.buffers[b->second];
        VKXLA_ASSIGN_OR_RETURN(std::string v, LoadBuffer(b->second, ref.shape(), d.shape.layout_or_default(), idx));
        values.push_back(v);
      }
      if (values.empty() || std::all_of(values.begin(), values.end(), [](const std::string& s) { return s.empty(); }))
        return Unimplemented(std::string(OpcodeName(n->opcode)) + " " + n->Describe() + " producing " +
                             n->shape.ToString() + ": tuple values of this op are not supported on Vulkan yet");
      break;
  }
  tuple_memo_[key] = values;
  return values;
}

StatusOr<std::vector<std::string>> ElementEmitter::Apply(const Computation& c, const std::vector<std::string>& args) {
  std::vector<Instruction*> params = c.parameters();
  if (params.size() != args.size())
    return Internal("computation " + c.name() + " applied to " + std::to_string(args.size()) + " values");
  // The same computation applied again binds other values: forget what
  // this application emits once it is done.
  const Memo saved = SaveMemo();
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
  RestoreMemo(saved);
  VKXLA_RETURN_IF_ERROR(status);
  return results;
}

Status ElementEmitter::Assign(const Instruction* n, const std::vector<std::string>& vars, const std::vector<std::string>& values) {
  // Through temporaries: a computation may swap or reuse its parameters.
  std::vector<std::string> staged;
  for (size_t k = 0; k < vars.size(); ++k) {
    const Shape& s = n->shape.IsTuple() ? n->shape.tuple_shapes()[k] : n->shape;
    VKXLA_ASSIGN_OR_RETURN(GlslType g, GlslTypeFor(s.element_type(), target_, n->Describe()));
    staged.push_back(Temp(g.compute, values[k]));
  }
  for (size_t k = 0; k < vars.size(); ++k) body_ += "    " + vars[k] + " = " + staged[k] + ";\n";
  return OkStatus();
}

StatusOr<std::string> ElementEmitter::DynamicSize(const Instruction* n, int64_t d) {
  if (!n->shape.is_dynamic_dim(d)) return U(n->shape.dim(d));
  const std::string key = "size:" + MemoKey(n, {std::to_string(d)});
  if (auto it = memo_.find(key); it != memo_.end()) return it->second;
  std::string size;
  // Values that come from outside the computation (parameters, results of
  // control flow), and values another kernel wrote: their sizes travel
  // with their buffers. (Recomputing the latter from their producers read
  // the producers' operands, which this kernel was not planned to read: a
  // size set from a parameter whose buffer the plan had reused came back
  // as garbage.)
  const ValueRef v = ValueRef::Of(n);
  const Opcode from = v.inst->opcode;
  if (n != root_ && materialized_(n)) {
    auto b = program_.value_buffer.find(v);
    if (b != program_.value_buffer.end() && program_.dynamic_sizes.count(b->second)) {
      VKXLA_ASSIGN_OR_RETURN(size, BufferDynamicSize(b->second, d, n->shape.dim(d)));
      memo_[key] = size;
      return size;
    }
  }
  if (from == Opcode::kParameter || from == Opcode::kWhile || from == Opcode::kConditional || from == Opcode::kCall) {
    auto b = program_.value_buffer.find(v);
    if (b == program_.value_buffer.end())
      return Unimplemented(n->Describe() + ": the run-time size of dimension " + std::to_string(d) + " of " +
                           n->shape.ToString() + " has no buffer to come from");
    VKXLA_ASSIGN_OR_RETURN(size, BufferDynamicSize(b->second, d, n->shape.dim(d)));
    memo_[key] = size;
    return size;
  }
  switch (n->opcode) {
    case Opcode::kSetDimensionSize:
      if ((*n->dimensions)[0] == d) {
        VKXLA_ASSIGN_OR_RETURN(size, ClampedIndex(n->operands[1], {}, n->shape.dim(d)));
      } else {
        VKXLA_ASSIGN_OR_RETURN(size, DynamicSize(n->operands[0], d));
      }
      break;
    case Opcode::kDynamicReshape: {
      VKXLA_ASSIGN_OR_RETURN(size, ClampedIndex(n->operands[1 + d], {}, n->shape.dim(d)));
      break;
    }
    case Opcode::kTranspose: {
      VKXLA_ASSIGN_OR_RETURN(size, DynamicSize(n->operands[0], (*n->dimensions)[d]));
      break;
    }
    case Opcode::kBroadcast:
      for (size_t k = 0; k < n->dimensions->size(); ++k)
        if ((*n->dimensions)[k] == d) {
          VKXLA_ASSIGN_OR_RETURN(size, DynamicSize(n->operands[0], static_cast<int64_t>(k)));
        }
      break;
    default:
      if (HeroKind(*n) || (n->opcode == Opcode::kGetTupleElement && HeroKind(*ValueRef::Of(n).inst))) break;
      for (const Instruction* o : n->operands)
        if (size.empty() && o->shape.IsArray() && o->shape.rank() == n->shape.rank() && o->shape.is_dynamic_dim(d)) {
          VKXLA_ASSIGN_OR_RETURN(size, DynamicSize(o, d));
        }
      break;
  }
  if (size.empty())
    return Unimplemented(std::string(OpcodeName(n->opcode)) + " " + n->Describe() + ": the run-time size of dimension " +
                         std::to_string(d) + " of " + n->shape.ToString() + " is not tracked through this op on Vulkan yet");
  memo_[key] = size;
  return size;
}

StatusOr<std::string> ElementEmitter::DynamicSize(const ValueRef& v, int64_t d) {
  if (v.index < 0) return DynamicSize(v.inst, d);
  auto b = program_.value_buffer.find(v);
  if (b == program_.value_buffer.end())
    return Unimplemented(v.ToString() + ": the run-time size of dimension " + std::to_string(d) + " of " +
                         v.shape().ToString() + " is not tracked on Vulkan yet");
  return BufferDynamicSize(b->second, d, v.shape().dim(d));
}

StatusOr<std::string> ElementEmitter::BufferDynamicSize(int buffer, int64_t d, int64_t bound) {
  const std::string& name = program_.buffers[buffer].name;
  if (auto s = program_.dynamic_sizes.find(buffer); s != program_.dynamic_sizes.end()) {
    const std::string dims = BindBuffer(s->second, Access::kRead, "dims");
    return Temp("uint", "min(W(" + dims + ", " + U(d) + "), " + U(bound) + ")");
  }
  const auto& params = program_.parameter_device;
  const auto p = std::find(params.begin(), params.end(), buffer);
  if (p == params.end())
    return Unimplemented(name + ": the run-time size of dimension " + std::to_string(d) + " is not tracked on Vulkan yet");
  if (d >= kMaxDynamicRank)
    return Unimplemented(name + ": dynamic parameters of rank above " + std::to_string(kMaxDynamicRank));
  if (program_.parameter_sizes < 0) return Internal(name + ": no parameter sizes were planned");
  reads_parameter_sizes_ = true;
  const std::string dims = BindBuffer(program_.parameter_sizes, Access::kRead, "dims_in");
  const int64_t slot = (p - params.begin()) * kMaxDynamicRank + d;
  return Temp("uint", "min(W(" + dims + ", " + U(slot) + "), " + U(bound) + ")");
}

StatusOr<std::string> ElementEmitter::LoadBuffer(int buffer, const Shape& shape, const Layout& layout,
                                                 const std::vector<std::string>& idx) {
  if (!shape.IsArray()) return Unimplemented(program_.buffers[buffer].name + ": tuple-shaped buffers are not supported yet");
  const ElementType t = shape.element_type();
  VKXLA_RETURN_IF_ERROR(UseType(t, program_.buffers[buffer].name + " " + shape.ToString()));
  VKXLA_ASSIGN_OR_RETURN(GlslType gt, GlslTypeFor(t, target_, program_.buffers[buffer].name));
  VKXLA_ASSIGN_OR_RETURN(int bits, ElementStorageBits(t, layout));
  if (vector_context_ && idx == vector_context_->index && shape.dims() == vector_context_->shape.dims() &&
      layout == vector_context_->layout && bits == vector_context_->bits) {
    // Same placement and element width as the invocation's vector: this
    // element sits in the same word of it, loaded once up front.
    const std::string name = BindReads(buffer, "in" + std::to_string(bindings_.size()));
    vector_loads_.insert(name);
    std::vector<std::string> words;
    for (int k = 0; k < WordsPerElement(t); ++k) words.push_back(name + "_v[ew + " + U(k) + "]");
    return Temp(gt.compute, DecodeWords(t, words, "es", bits));
  }
  Shape placed = shape;
  placed.set_layout(layout);
  VKXLA_ASSIGN_OR_RETURN(std::optional<std::string> whole, LoadWhole(buffer, placed, bits, idx));
  if (whole) return Temp(gt.compute, *whole);
  // Element reads take texels too where the target reads them so: a whole
  // texel for one word still beat llvmpipe's per-lane storage loads in a
  // standalone test (2.7x for neighbouring words, 1.4x for random ones).
  const std::string name = BindReads(buffer, "in" + std::to_string(bindings_.size()));
  VKXLA_ASSIGN_OR_RETURN(std::string p, PhysicalIndex(shape, layout, idx));
  return Temp(gt.compute, LoadExpression(t, name, p, bits, IsTexel(name) ? "TW" : "W"));
}

StatusOr<std::string> ElementEmitter::Compute(const Instruction* n, const std::vector<std::string>& idx) {
  if (ForwardsOperand(*n)) return Value(n->operands[0], idx);  // opt-barrier, add-dependency, annotations
  const ElementType t = n->shape.element_type();
  if (n->shape.IsArray()) VKXLA_RETURN_IF_ERROR(Use(t, *n));
  VKXLA_ASSIGN_OR_RETURN(GlslType gt, GlslTypeFor(t, target_, n->Describe()));
  const std::string& ct = gt.compute;
  switch (n->opcode) {
    case Opcode::kConstant:
      if (n->shape.rank() == 0 || n->shape.element_count() == 1)
        return GlslLiteral(n->literal->Get(0), target_.literal_zeros_folded);
      [[fallthrough]];
    case Opcode::kParameter: {
      std::optional<Layout> layout = materialized_(n);
      auto b = program_.value_buffer.find(ValueRef{n, -1});
      if (!layout || b == program_.value_buffer.end()) return Internal(n->Describe() + " has no buffer");
      return LoadBuffer(b->second, n->shape, *layout, idx);
    }
    case Opcode::kGetTupleElement: {
      // An element of a tuple op is its operand; the siblings are not computed.
      if (n->operands[0]->opcode == Opcode::kTuple) return Value(n->operands[0]->operands[n->tuple_index], idx);
      VKXLA_ASSIGN_OR_RETURN(std::vector<std::string> values, TupleValue(n->operands[0], idx));
      if (values[n->tuple_index].empty()) return Internal(n->Describe() + ": element not available in this kernel");
      return values[n->tuple_index];
    }
    case Opcode::kDynamicSlice: case Opcode::kDynamicUpdateSlice: case Opcode::kGather:
      return IndexElements(n, idx);
    case Opcode::kGetDimensionSize: {
      VKXLA_ASSIGN_OR_RETURN(std::string size, DynamicSize(n->operands[0], (*n->dimensions)[0]));
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
        VKXLA_ASSIGN_OR_RETURN(std::string size, DynamicSize(n, d));
        linear = Temp("uint", "(" + linear + ") * " + size + " + " + idx[d]);
      }
      std::vector<std::string> in(x->shape.rank());
      for (int64_t d = x->shape.rank() - 1; d >= 0; --d) {
        VKXLA_ASSIGN_OR_RETURN(std::string size, DynamicSize(x, d));
        const std::string extent = Temp("uint", "max(" + size + ", 1u)");
        in[d] = Temp("uint", "min(" + linear + " % " + extent + ", " + U(std::max<int64_t>(x->shape.dim(d) - 1, 0)) + ")");
        linear = Temp("uint", linear + " / " + extent);
      }
      return Value(x, in);
    }
    case Opcode::kSort: case Opcode::kTopK: {
      VKXLA_ASSIGN_OR_RETURN(std::vector<std::string> values, SortResults(n, idx));
      return values[0];
    }
    case Opcode::kMap: {
      std::vector<std::string> args;
      for (const Instruction* o : n->operands) {
        VKXLA_ASSIGN_OR_RETURN(std::string v, Value(o, idx));
        args.push_back(v);
      }
      VKXLA_ASSIGN_OR_RETURN(std::vector<std::string> r, Apply(*n->called_computations[0].second, args));
      return Temp(ct, r[0]);
    }
    case Opcode::kIota: {
      VKXLA_ASSIGN_OR_RETURN(std::string v, Convert(idx[n->iota_dimension], ElementType::kU32, t));
      return Temp(ct, v);
    }
    case Opcode::kBroadcast: {
      const Instruction* x = n->operands[0];
      std::vector<std::string> in_idx;
      for (size_t d = 0; d < n->dimensions->size(); ++d)
        in_idx.push_back(x->shape.dim(d) == 1 ? "0u" : idx[(*n->dimensions)[d]]);
      return Value(x, in_idx);
    }
    case Opcode::kRngBitGenerator:
      return RngBits(n, idx);
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
  if (n->opcode == Opcode::kCustomCall) {
    // A registered elementwise GLSL function, called on the operands' elements.
    std::optional<GlslCustomCall> g = FindGlslCustomCall(CustomCallTarget(*n));
    if (!g) return Unimplemented("custom-call " + n->Describe() + ": no GLSL function is registered for it");
    std::string args;
    for (const Instruction* o : n->operands) {
      VKXLA_RETURN_IF_ERROR(Use(o->shape.element_type(), *n));
      VKXLA_ASSIGN_OR_RETURN(std::string v, Value(o, idx));
      args += (args.empty() ? "" : ", ") + v;
    }
    return Temp(ct, NormalizeExpression(t, Helper(g->function, g->source + "\n") + "(" + args + ")"));
  }
  if (!IsElementwise(n->opcode))
    return Unimplemented(std::string(OpcodeName(n->opcode)) + " " + n->Describe() + ": not implemented on Vulkan yet");
  std::vector<std::string> ops;
  for (const Instruction* o : n->operands) {
    VKXLA_ASSIGN_OR_RETURN(std::string v, Value(o, o->shape.rank() == 0 ? std::vector<std::string>{} : idx));
    VKXLA_RETURN_IF_ERROR(Use(o->shape.element_type(), *n));
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
    VKXLA_ASSIGN_OR_RETURN(expr, Unary(*n, ops[0]));
  } else {
    VKXLA_ASSIGN_OR_RETURN(expr, Binary(*n, ops[0], ops[1]));
  }
  if (n->opcode != Opcode::kConvert && n->opcode != Opcode::kCompare && n->opcode != Opcode::kIsFinite)
    expr = NormalizeExpression(t, expr);
  return Temp(ct, expr);
}

Status ElementEmitter::Function(const std::string& name, const std::string& params, const std::string& ret,
                                const std::function<StatusOr<std::string>()>& value) {
  const std::string saved_body = body_;
  const Memo saved = SaveMemo();
  body_.clear();
  ClearMemo();
  ++function_depth_;
  StatusOr<std::string> v = value();
  --function_depth_;
  const std::string fn = ret + " " + name + "(" + params + ") {\n" + body_ + "    return " + (v.ok() ? *v : "") + ";\n}\n";
  body_ = saved_body;
  RestoreMemo(saved);
  VKXLA_RETURN_IF_ERROR(v.status());
  Helper(name, fn);
  return OkStatus();
}

Status ElementEmitter::AddressFunction(const std::string& name, const std::string& params, const Instruction* x,
                                       const std::vector<std::string>& idx, const VectorSource& source) {
  address_chain_ = std::set<const Instruction*>(source.chain.begin(), source.chain.end());
  address_value_ = source.value;
  Status s = Function(name, params, "uint", [&]() { return Value(x, idx); });
  address_chain_.clear();
  address_value_ = nullptr;
  return s;
}

std::string ElementEmitter::ReadAddressedVectors(const std::string& buffer, const std::string& address, const std::string& name,
                                                 bool padded, int64_t lanes, int64_t count) {
  const std::string p = name + "_p";
  std::string code = "  uint " + p + " = " + address + ";\n";
  if (padded) {
    code += "  bool " + name + "_ok = " + p + " != 0xFFFFFFFFu;\n";
    code += "  " + p + " = " + name + "_ok ? " + p + " / " + U(lanes) + " : 0u;\n";
  } else {
    code += "  " + p + " /= " + U(lanes) + ";\n";
  }
  for (int64_t j = 0; j < count; ++j)
    code += "  uvec4 " + name + "_" + std::to_string(j) + " = " + ReadVector(buffer, j ? p + " + " + U(j) : p) + ";\n";
  return code;
}

StatusOr<std::string> ElementEmitter::ReadHoistedVector(const Instruction* n, const VectorSource& source, const std::string& id,
                                                        const std::vector<std::string>& first, int64_t lanes) {
  auto f = vector_address_functions_.find(n);
  if (f == vector_address_functions_.end()) {
    std::string params;
    std::vector<std::string> idx;
    for (size_t d = 0; d < first.size(); ++d) {
      idx.push_back("i" + std::to_string(d));
      params += (d ? ", uint i" : "uint i") + std::to_string(d);
    }
    const std::string name = "vector_address" + std::to_string(vector_address_functions_.size());
    VKXLA_RETURN_IF_ERROR(AddressFunction(name, params, n, idx, source));
    f = vector_address_functions_.emplace(n, name).first;
  }
  std::string args;
  for (const std::string& i : first) args += (args.empty() ? "" : ", ") + i;
  const std::string buffer = BindReads(program_.value_buffer.at(ValueRef::Of(source.value)), "hoisted" + id);
  return ReadAddressedVectors(buffer, f->second + "(" + args + ")", "hoisted" + id, source.pad != nullptr, lanes, 1);
}

StatusOr<std::string> ElementEmitter::HoistedLane(const Instruction* n, const VectorSource& source, const std::string& id,
                                                  int bits) {
  const ElementType t = n->shape.element_type();
  std::vector<std::string> words;
  for (int k = 0; k < WordsPerElement(t); ++k) words.push_back("hoisted" + id + "_0[ew + " + U(k) + "]");
  std::string lane = DecodeWords(t, words, "es", bits);
  if (source.pad) {
    VKXLA_ASSIGN_OR_RETURN(std::string pad, Value(source.pad->operands[1], {}));
    lane = "(hoisted" + id + "_ok ? " + lane + " : " + pad + ")";
  }
  VKXLA_ASSIGN_OR_RETURN(GlslType g, GlslTypeFor(t, target_, n->Describe()));
  return Temp(g.compute, lane);
}

StatusOr<std::string> ElementEmitter::EmitFunction(const std::string& name, const Instruction* n) {
  if (!n->shape.IsArray()) return Unimplemented(n->Describe() + ": functions of tuple values");
  VKXLA_ASSIGN_OR_RETURN(GlslType gt, GlslTypeFor(n->shape.element_type(), target_, n->Describe()));
  std::vector<std::string> idx;
  std::string params;
  for (int64_t d = 0; d < n->shape.rank(); ++d) {
    idx.push_back("i" + std::to_string(d));
    params += (d ? ", uint i" : "uint i") + std::to_string(d);
  }
  VKXLA_RETURN_IF_ERROR(Function(name, params, gt.compute, [&]() { return Value(n, idx); }));
  return helpers_.at(name);
}

std::string ElementEmitter::StoreElement(ElementType t, const std::string& v) {
  const int per_word = out_bits_ >= 32 ? 1 : 32 / out_bits_;
  if (per_word > 1) return "      outv[ew] |= " + EncodeToBits(t, v) + " << " + SlotBitOffset(out_bits_, "es") + ";\n";
  if (WordsPerElement(t) == 1) return "      outv[ew] = " + EncodeToBits(t, v) + ";\n";
  if (t == ElementType::kC128) return "      outv = uvec4(unpackDouble2x32(" + v + ".x), unpackDouble2x32(" + v + ".y));\n";
  return "      { uvec2 bits = " + Bits64(t, v) + "; outv[ew] = bits.x; outv[ew + 1u] = bits.y; }\n";
}

std::string ElementEmitter::VectorSlot() const {
  const int per_word = out_bits_ >= 32 ? 1 : 32 / out_bits_, words = WordsPerElement(out_.element_type());
  std::string s = "    uint ew = " + (per_word > 1 ? std::string("e >> ") + U(per_word == 2 ? 1 : per_word == 4 ? 2 : 3)
                                                  : words > 1 ? "e * " + U(words) : std::string("e")) + ";\n";
  return s + "    uint es = " + (per_word > 1 ? "e & " + U(per_word - 1) : std::string("0u")) + ";\n";
}

StatusOr<std::string> ElementEmitter::StoreScattered(const std::string& buffer, int bits, ElementType t,
                                                     const std::string& p, const std::string& v) {
  const int words = WordsPerElement(t);
  if (bits >= 32) {
    if (t == ElementType::kC128)
      return "    { uint w = " + p + " * 4u; " + buffer + ".v[w >> 2u] = uvec4(unpackDouble2x32(" + v +
             ".x), unpackDouble2x32(" + v + ".y)); }\n";
    if (words == 1) return "    W(" + buffer + ", " + p + ") = " + EncodeToBits(t, v) + ";\n";
    return "    { uint w = " + p + " * 2u; uvec2 bits = " + Bits64(t, v) + "; W(" + buffer + ", w) = bits.x; W(" + buffer +
           ", w + 1u) = bits.y; }\n";
  }
  // Elements share words with other invocations' elements: clear the slot
  // and set it atomically.
  const int per_word = 32 / bits;
  const std::string fn = "store_slot_" + buffer;
  Helper(fn, "void " + fn + "(uint w, uint shift, uint mask, uint bits) {\n"
             "  switch (w & 3u) {\n"
             "    case 0u: atomicAnd(" + buffer + ".v[w >> 2u].x, ~(mask << shift)); atomicOr(" + buffer + ".v[w >> 2u].x, (bits & mask) << shift); break;\n"
             "    case 1u: atomicAnd(" + buffer + ".v[w >> 2u].y, ~(mask << shift)); atomicOr(" + buffer + ".v[w >> 2u].y, (bits & mask) << shift); break;\n"
             "    case 2u: atomicAnd(" + buffer + ".v[w >> 2u].z, ~(mask << shift)); atomicOr(" + buffer + ".v[w >> 2u].z, (bits & mask) << shift); break;\n"
             "    default: atomicAnd(" + buffer + ".v[w >> 2u].w, ~(mask << shift)); atomicOr(" + buffer + ".v[w >> 2u].w, (bits & mask) << shift); break;\n"
             "  }\n}\n");
  const std::string slot = "(" + p + ") % " + U(per_word);
  return "    " + fn + "((" + p + ") / " + U(per_word) + ", " + SlotBitOffset(bits, slot) + ", " +
         U((int64_t{1} << bits) - 1) + ", " + EncodeToBits(t, v) + ");\n";
}

StatusOr<std::string> ElementEmitter::LoadOutputElement(size_t k, const std::vector<std::string>& idx) {
  const Shape& s = program_.buffers[group_.outputs[k].buffer].shape;
  VKXLA_ASSIGN_OR_RETURN(std::string p, PhysicalIndex(s, s.layout_or_default(), idx));
  VKXLA_ASSIGN_OR_RETURN(const int bits, ElementStorageBits(s.element_type(), s.layout_or_default()));
  VKXLA_ASSIGN_OR_RETURN(GlslType g, GlslTypeFor(s.element_type(), target_, group_.outputs[k].value.ToString()));
  return Temp(g.compute, LoadExpression(s.element_type(), BindOutput(k, Access::kReadWrite), p, bits));
}

StatusOr<std::string> ElementEmitter::StoreOutputElement(size_t k, const std::vector<std::string>& idx, const std::string& v) {
  const Shape& s = program_.buffers[group_.outputs[k].buffer].shape;
  VKXLA_ASSIGN_OR_RETURN(std::string p, PhysicalIndex(s, s.layout_or_default(), idx));
  VKXLA_ASSIGN_OR_RETURN(const int bits, ElementStorageBits(s.element_type(), s.layout_or_default()));
  return StoreScattered(BindOutput(k, Access::kReadWrite), bits, s.element_type(), p, v);
}

StatusOr<std::vector<std::string>> ElementEmitter::OwnOutputElement(std::string& main) {
  const Shape& s = program_.buffers[group_.outputs[0].buffer].shape;
  VKXLA_ASSIGN_OR_RETURN(TiledIndexMap map, TiledIndexMap::Create(s));
  main += "  if (inv >= " + U(map.physical_element_count()) + ") return;\n";
  GlslIndexArithmetic a;
  std::string valid;
  std::vector<std::string> idx = map.FromPhysical<GlslIndexArithmetic>("inv", a, valid);
  if (valid != "true") main += "  if (!(" + valid + ")) return;\n";  // padding
  for (size_t d = 0; d < idx.size(); ++d) {
    main += "  uint i" + std::to_string(d) + " = " + idx[d] + ";\n";
    idx[d] = "i" + std::to_string(d);
  }
  return idx;
}

bool ElementEmitter::IsTexel(const std::string& name) const {
  for (const Binding& b : bindings_)
    if (b.texel && b.name == name) return true;
  return false;
}

std::string ElementEmitter::ReadVector(const std::string& buffer, const std::string& index) {
  if (IsTexel(buffer)) return "texelFetch(" + buffer + ", int(" + index + "))";
  if (!(target_.cpu && target_.int64)) return buffer + ".v[" + index + "]";
  wide_buffers_.insert(buffer);
  return "widen(" + buffer + "w.v[" + index + "])";
}

std::string ElementEmitter::WriteVector(const std::string& buffer, const std::string& index, const std::string& value) {
  if (!(target_.cpu && target_.int64)) return buffer + ".v[" + index + "] = " + value + ";";
  wide_buffers_.insert(buffer);
  return buffer + "w.v[" + index + "] = narrow(" + value + ");";
}

std::string ElementEmitter::ScalarAlias(const std::string& buffer, const std::string& type) {
  scalar_aliases_.insert({buffer, type});
  return buffer + "_" + type;
}

std::string ElementEmitter::Prologue(uint32_t local_size, const std::string& name, bool uses_double) const {
  std::string src = "#version 450\n";
  const bool wide = !wide_buffers_.empty() || !quad_buffers_.empty();
  if (int64_ || wide || atomic_int64_) src += "#extension GL_ARB_gpu_shader_int64 : require\n";
  // Without shaderInt64 they become word pairs (codegen/spirv_int64_lowering.h).
  LibraryNeeds needs = needs_;
  needs.int64_words = int64_ && !target_.int64;
  // Without shaderFloat64 doubles run in software (codegen/spirv_float64_lowering.h).
  // Or, where the user asks, as pairs of f32 (TargetFeatures::float64_pairs).
  needs.float64_soft = uses_double && !target_.float64 && !target_.float64_pairs;
  needs.float64_pairs = uses_double && !target_.float64 && target_.float64_pairs;
  if (needs.int64_words || needs.float64_soft || needs.float64_pairs) src += "#extension GL_EXT_control_flow_attributes : require\n";
  if (atomic_float_) src += "#extension GL_EXT_shader_atomic_float : require\n";
  if (atomic_int64_) src += "#extension GL_EXT_shader_atomic_int64 : require\n";
  if (subgroup_broadcast_) src += "#extension GL_KHR_shader_subgroup_ballot : require\n";
  if (cooperative_matrix_)
    src += "#extension GL_NV_cooperative_matrix : require\n#extension GL_KHR_memory_scope_semantics : require\n"
           "#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require\n#extension GL_KHR_shader_subgroup_basic : require\n";
  bool addressed = false;
  for (const Binding& b : bindings_) addressed = addressed || program_.buffers[b.buffer].addressed;
  if (addressed) src += "#extension GL_EXT_buffer_reference : require\n#extension GL_EXT_buffer_reference_uvec2 : require\n";
  src += "// kernel " + name + ": " + out_.ToString() + "\n";
  src += "layout(local_size_x = " + std::to_string(local_size) + ") in;\n";
  src += "#define W(b, i) b.v[(i) >> 2u][(i) & 3u]\n";
  src += "#define TW(b, i) texelFetch(b, int((i) >> 2u))[(i) & 3u]\n";
  // An array past the binding range (plan/buffer_assignment.h): its
  // binding holds its device address, and each view of it (the words, the
  // wide and scalar aliases) is a buffer reference made from that address
  // as main begins; accesses read the same either way.
  std::string take_addresses;
  for (size_t i = 0; i < bindings_.size(); ++i) {
    const Binding& b = bindings_[i];
    const std::string n = std::to_string(i);
    if (b.texel) {
      src += "layout(set = 0, binding = " + n + ") uniform usamplerBuffer " + b.name + ";\n";
      continue;
    }
    const std::string access = b.access == Access::kRead ? "readonly " : b.access == Access::kWrite ? "writeonly " : "";
    const bool by_address = program_.buffers[b.buffer].addressed;
    if (by_address)
      src += "layout(std430, set = 0, binding = " + n + ") readonly buffer B" + n + "A { uvec2 address; } " + b.name + "_address;\n";
    auto view = [&](const std::string& suffix, const std::string& element, const std::string& var) {
      if (!by_address) {
        src += "layout(std430, set = 0, binding = " + n + ") " + access + "buffer B" + n + suffix + " { " + element + " v[]; } " + var + ";\n";
        return;
      }
      src += "layout(std430, buffer_reference, buffer_reference_align = 16) " + access + "buffer B" + n + suffix + " { " + element +
             " v[]; };\nB" + n + suffix + " " + var + ";\n";
      take_addresses += "  " + var + " = B" + n + suffix + "(" + b.name + "_address.address);\n";
    };
    view("", "uvec4", b.name);
    if (wide_buffers_.count(b.name)) view("W", "u64vec2", b.name + "w");
    if (quad_buffers_.count(b.name)) view("Q", "u64vec4", b.name + "q");
    for (const auto& [buffer, type] : scalar_aliases_)
      if (buffer == b.name) view("_" + type, type, b.name + "_" + type);
  }
  if (wide)
    src += "uvec4 widen(u64vec2 w) { return uvec4(unpackUint2x32(w.x), unpackUint2x32(w.y)); }\n"
           "u64vec2 narrow(uvec4 v) { return u64vec2(packUint2x32(v.xy), packUint2x32(v.zw)); }\n";
  src += push_constants_;
  src += ShaderLibrarySource(needs, target_.float64, target_.exact_div_sqrt);
  for (const std::string& helper : helper_order_) src += helpers_.at(helper);
  src += shared_;
  src += "void main() {\n" + take_addresses;
  if (needs.int64_words) src += "  if (i64w_never != 0u) i64w_keep();\n";  // keeps the word-pair functions for the lowering
  if (needs.float64_soft) src += "  if (f64s_never != 0u) f64s_keep();\n";
  if (needs.float64_pairs) src += "  if (f64p_never != 0u) f64p_keep();\n";
  src += "  uint inv = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * " + U(local_size) + ";\n";
  return src;
}

KernelSource ElementEmitter::Finish(const std::string& name, uint32_t local_size, const std::string& main_body) const {
  KernelSource k;
  k.name = name;
  // Doubles anywhere in the kernel's own code (not only its element types:
  // helpers such as a round-to-odd f64 -> f32 declare them too).
  bool uses_double = needs_.real_f64 || needs_.complex_f64;
  for (const std::string* part : {&main_body, &shared_})
    uses_double = uses_double || part->find("double") != std::string::npos || part->find("dvec") != std::string::npos;
  for (const auto& [helper, def] : helpers_)
    uses_double = uses_double || def.find("double") != std::string::npos || def.find("dvec") != std::string::npos;
  k.glsl = Prologue(local_size, name, uses_double) + main_body;
  for (const Binding& b : bindings_) k.bindings.push_back(b.buffer);
  return k;
}

}  // namespace vkxla
