// Split reduce (split-K): a long reduction whose results lie along the
// operand's rows folds in passes. The first (EmitReduce with split_ set)
// folds blocks of kReduceBlockRows rows of the operand into partials; each
// later pass folds blocks of the previous partials, alternating between two
// regions of one buffer; the reduce kernel then folds the last few after
// the init value. Blocks are consecutive and fold left to right, so any
// associative computation gives the sequential answer.
//
// Why: with one invocation per result vector, a column sum has too little
// parallelism for a GPU and, on a CPU driver, strides each invocation
// through thousands of rows, out of reach of the hardware prefetchers.
// Blocks of 16 rows measured 0.8 of the stream kernel on lavapipe against
// 0.41 for rows walked in lockstep, and about 1.0 with 64-bit words
// (f32[4096,4096]; BENCHMARKS.md).
#include "codegen/fused_emitter.h"

#include "codegen/glsl_types.h"
#include "ops/reduction_shapes.h"

namespace vkxla {
namespace {

// A 32-bit word as a value of `t` (f32, s32 or u32).
std::string FromWord(ElementType t, const std::string& w) { return DecodeWords(t, {w}, "0u"); }

}  // namespace

StatusOr<std::optional<ReduceSplit>> PlanReduceSplit(const Instruction& reduce, const Shape& output_with_layout,
                                                     const BufferLayoutFn& buffer_layout, const TargetFeatures& target) {
  if (reduce.opcode != Opcode::kReduce || reduce.operands.size() != 2 || !output_with_layout.IsArray())
    return std::optional<ReduceSplit>();
  const ElementType t = reduce.operands[0]->shape.element_type();
  if ((t != ElementType::kF32 && t != ElementType::kS32 && t != ElementType::kU32) || output_with_layout.element_type() != t)
    return std::optional<ReduceSplit>();
  FusedEmitter e(target, buffer_layout);
  ASSIGN_OR_RETURN(const FusedEmitter::ReduceGeometry geo, e.GeometryOfReduce(reduce, output_with_layout));
  // Short reductions gain nothing from a second pass.
  if (!geo.column_vectors || geo.K < 4 * kReduceBlockRows) return std::optional<ReduceSplit>();
  ReduceSplit split;
  split.outputs = geo.outputs;
  for (int64_t m = geo.K; m > kReduceBlockRows;) {
    m = (m + kReduceBlockRows - 1) / kReduceBlockRows;
    split.parts.push_back(m);
  }
  const int64_t words = (split.parts[0] + (split.parts.size() > 1 ? split.parts[1] : 0)) * split.outputs;
  split.partials = Shape(t, {words});
  split.partials.set_layout(split.partials.layout_or_default());
  return std::optional<ReduceSplit>(std::move(split));
}

StatusOr<std::vector<KernelSource>> EmitReducePartials(const Instruction& reduce, const Shape& output_with_layout,
                                                       const ReduceSplit& split, const BufferLayoutFn& buffer_layout,
                                                       const TargetFeatures& target) {
  std::vector<KernelSource> kernels;
  FusedEmitter first(target, buffer_layout);
  ASSIGN_OR_RETURN(KernelSource k, first.EmitFirstPartialsPass(reduce, output_with_layout, split));
  kernels.push_back(std::move(k));
  for (size_t pass = 1; pass < split.parts.size(); ++pass) {
    FusedEmitter e(target, buffer_layout);
    ASSIGN_OR_RETURN(KernelSource next, e.EmitPartialsPass(reduce, split, pass));
    kernels.push_back(std::move(next));
  }
  return kernels;
}

StatusOr<KernelSource> FusedEmitter::EmitPartialsPass(const Instruction& reduce, const ReduceSplit& split, size_t pass) {
  const ElementType t = reduce.shape.element_type();
  const Computation* f = reduce.called_computations[0].second;
  out_ = split.partials;
  out_layout_ = out_.layout_or_default();
  root_index_ = {"<no vector loads>"};
  out_readable_ = true;
  RETURN_IF_ERROR(Use(t, reduce));
  ASSIGN_OR_RETURN(GlslType type, GlslTypeFor(t, target_, reduce.Describe()));
  const int64_t vectors = split.outputs / 4, blocks = split.parts[pass], in_parts = split.parts[pass - 1];
  const int64_t from = split.RegionOffset(pass - 1) / 4, to = split.RegionOffset(pass) / 4;
  std::string main = "  uint q = inv % " + U(vectors) + ", block = inv / " + U(vectors) + ";\n";
  main += "  if (block >= " + U(blocks) + ") return;\n";
  main += "  uint first = block * " + U(kReduceBlockRows) + ";\n";
  main += "  uvec4 w = " + ReadVector("out0", U(from) + " + first * " + U(vectors) + " + q") + ";\n";
  for (int e = 0; e < 4; ++e) main += "  " + type.compute + " acc" + std::to_string(e) + " = " + FromWord(t, "w[" + U(e) + "]") + ";\n";
  main += "  for (uint r = 1u; r < " + U(kReduceBlockRows) + "; ++r) {\n";
  main += std::string(in_parts % kReduceBlockRows == 0 ? "  {\n" : "  if (first + r < " + U(in_parts) + ") {\n");
  main += "    w = " + ReadVector("out0", U(from) + " + (first + r) * " + U(vectors) + " + q") + ";\n";
  body_.clear();
  memo_.clear();
  for (int e = 0; e < 4; ++e) {
    const std::string acc = "acc" + std::to_string(e);
    ASSIGN_OR_RETURN(std::vector<std::string> next, Apply(*f, {acc, Temp(type.compute, FromWord(t, "w[" + U(e) + "]"))}));
    RETURN_IF_ERROR(Assign(&reduce, {acc}, next));
  }
  main += body_ + "  }\n  }\n";
  std::string words;
  for (int e = 0; e < 4; ++e) words += (e ? ", " : "") + EncodeToBits(t, "acc" + std::to_string(e));
  main += "  " + WriteVector("out0", U(to) + " + block * " + U(vectors) + " + q", "uvec4(" + words + ")") + "\n}\n";
  KernelSource k;
  k.name = "reduce_partials_" + reduce.name + "_" + std::to_string(pass);
  k.inputs = inputs_;
  k.output = split.partials;
  k.local_size = 256;
  k.invocations = static_cast<uint64_t>(vectors * blocks);
  k.glsl = Prologue(256, k.name) + main;
  return k;
}

StatusOr<KernelSource> FusedEmitter::EmitReduceFromPartials(const Instruction& root, const Instruction& reduce,
                                                            const Shape& out, const Instruction* partials) {
  ASSIGN_OR_RETURN(std::optional<ReduceSplit> split, PlanReduceSplit(reduce, out, buffer_layout_, target_));
  if (!split) return Internal(reduce.Describe() + ": partials were planned for a reduce that does not split");
  const ElementType t = out.element_type();
  const Computation* f = reduce.called_computations[0].second;
  root_ = &root;
  out_ = out;
  out_layout_ = out.layout_or_default();
  root_index_ = {"<no vector loads>"};
  out_bits_ = 32;
  RETURN_IF_ERROR(Use(t, reduce));
  ASSIGN_OR_RETURN(GlslType type, GlslTypeFor(t, target_, reduce.Describe()));
  // The result's physical order is the partials' order (PlanReduceSplit
  // only splits unpadded, untiled 32-bit results): element e of vector
  // inv is result inv * 4 + e.
  const int64_t vectors = split->outputs / 4, parts = split->parts.back();
  const int64_t region = split->RegionOffset(split->parts.size() - 1);
  body_.clear();
  memo_.clear();
  ASSIGN_OR_RETURN(std::string init, Value(reduce.operands[1], {}));
  const std::string prelude = body_;
  std::string main = "  if (inv >= " + U(vectors) + ") return;\n" + prelude + "  uvec4 outv;\n";
  main += "  for (uint e = 0u; e < 4u; ++e) {\n    " + type.compute + " acc = " + init + ";\n";
  main += "    for (uint j = 0u; j < " + U(parts) + "; ++j) {\n";
  body_.clear();
  ASSIGN_OR_RETURN(std::string x, Value(partials, {"(" + U(region) + " + j * " + U(split->outputs) + " + inv * 4u + e)"}));
  ASSIGN_OR_RETURN(std::vector<std::string> next, Apply(*f, {"acc", x}));
  RETURN_IF_ERROR(Assign(&reduce, {"acc"}, next));
  main += body_ + "    }\n    outv[e] = " + EncodeToBits(t, "acc") + ";\n  }\n  " + WriteVector("out0", "inv", "outv") + "\n}\n";
  KernelSource k;
  k.name = "reduce_" + root.name;
  k.inputs = inputs_;
  k.output = out;
  k.local_size = 256;
  k.invocations = static_cast<uint64_t>(vectors);
  k.glsl = Prologue(256, k.name) + main;
  return k;
}

}  // namespace vkxla
