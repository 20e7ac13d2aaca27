// The code generator's core, shared by the files that emit its parts: one
// compute kernel for a DAG rooted at an instruction. Each invocation owns a
// uvec4 of the output and computes its elements; every other value is
// either read from a buffer (through its own layout) or computed inline,
// so data movement, indexing and scatter fuse as index maps and loops.
// Internal to codegen/.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "codegen/fused_kernel_emitter.h"
#include "codegen/kernel.h"
#include "codegen/shader_library.h"
#include "plan/target_features.h"
#include "ir/module.h"
#include "ir/tiled_index.h"

namespace vkxla {

std::string U(int64_t v);  // "7u"
int64_t PowerOfTwoAtLeast(int64_t x);
// Name suffix of the real-math instance a type computes with ("float").
std::string MathSuffix(ElementType t);

class FusedEmitter {
 public:
  FusedEmitter(const TargetFeatures& target, BufferLayoutFn buffer_layout, PlannedBufferFn planned_buffer = nullptr)
      : target_(target), buffer_layout_(std::move(buffer_layout)), planned_buffer_(std::move(planned_buffer)) {}

  StatusOr<KernelSource> Emit(const Instruction& root, const Shape& out);
  // One pass of the bitonic network that sorts a sort's permutation
  // (sort_emitter.cc): `local` passes run in shared memory over blocks.
  StatusOr<KernelSource> EmitSortStep(const Instruction& sort, const Shape& permutation, bool local);
  // One result of a scan: a parallel prefix or a loop per line (scan_emitter.cc).
  StatusOr<KernelSource> EmitScan(const Instruction& root, const Shape& out);
  // Statements storing `v` as output element `p` (a physical index) when
  // invocations do not own whole vectors: atomics where elements share words.
  StatusOr<std::string> StoreScattered(ElementType t, const std::string& p, const std::string& v);
  // A reduce (or one element of a variadic one) as a workgroup tree (reduce_emitter.cc).
  StatusOr<KernelSource> EmitReduce(const Instruction& root, const Shape& out);
  // The first pass of a split reduce: blocks of rows into partials.
  StatusOr<KernelSource> EmitFirstPartialsPass(const Instruction& reduce, const Shape& out, const ReduceSplit& split) {
    split_ = &split;
    return EmitReduce(reduce, out);
  }
  // How a reduce reads its operand: the reduced length K, the operand's
  // unit-stride dim, and whether it is read as vectors along a reduced row
  // or across 4 results (column_vectors).
  struct ReduceGeometry {
    int64_t K = 1, outputs = 1, unit = -1;
    bool rows = false, row_vectors = false, column_vectors = false;
    Layout x_layout;
  };
  StatusOr<ReduceGeometry> GeometryOfReduce(const Instruction& reduce, const Shape& out);
  // Passes of a split reduce after the first (reduce_partials_emitter.cc):
  // `pass` folds blocks of the previous pass's partials, in place.
  StatusOr<KernelSource> EmitPartialsPass(const Instruction& reduce, const ReduceSplit& split, size_t pass);
  // The reduce kernel of a split reduce: the init value, then the last partials.
  StatusOr<KernelSource> EmitReduceFromPartials(const Instruction& root, const Instruction& reduce, const Shape& out,
                                                const Instruction* partials);

 private:
  StatusOr<std::string> Value(const Instruction* n, const std::vector<std::string>& idx);
  StatusOr<std::string> Compute(const Instruction* n, const std::vector<std::string>& idx);
  StatusOr<std::string> Unary(const Instruction& n, const std::string& x);
  StatusOr<std::string> Binary(const Instruction& n, const std::string& a, const std::string& b);
  StatusOr<std::string> Convert(const std::string& x, ElementType from, ElementType to);
  StatusOr<std::string> Bitcast(const Instruction* n, const std::vector<std::string>& idx);
  StatusOr<std::string> Reinterpret(const Instruction* n, const std::vector<std::string>& idx);
  StatusOr<std::string> MoveElements(const Instruction* n, const std::vector<std::string>& idx);
  // dynamic-slice, dynamic-update-slice and gather (index_map_emitter.cc).
  StatusOr<std::string> IndexElements(const Instruction* n, const std::vector<std::string>& idx);
  // An integer element of `n` as a GLSL int, saturated to int's range.
  StatusOr<std::string> IndexAsInt(const Instruction* n, const std::vector<std::string>& idx);
  // That element clamped to [0, max(limit, 0)], as a uint (XLA's start
  // indices; run-time sizes).
  StatusOr<std::string> ClampedIndex(const Instruction* n, const std::vector<std::string>& idx, int64_t limit);
  // The run-time size of dim d of `n` (a constant unless the dim is dynamic).
  StatusOr<std::string> DynamicSize(const Instruction* n, int64_t d);
  // Reads element `idx` of a value that lives in a buffer.
  StatusOr<std::string> Load(const Instruction* n, const Layout& layout, const std::vector<std::string>& idx);
  // The elements of a tuple-shaped value at `idx` (tuple, variadic scatter).
  StatusOr<std::vector<std::string>> TupleValue(const Instruction* n, const std::vector<std::string>& idx);
  // Scatter's N results at `idx` (scatter_emitter.cc).
  StatusOr<std::vector<std::string>> Scatter(const Instruction* n, const std::vector<std::string>& idx);
  // reduce-window's N results and select-and-scatter's result at `idx` (window_emitter.cc).
  StatusOr<std::vector<std::string>> ReduceWindow(const Instruction* n, const std::vector<std::string>& idx);
  StatusOr<std::string> SelectAndScatter(const Instruction* n, const std::vector<std::string>& idx);
  // Assigns a computation's results to accumulators of `n`'s element types
  // (through temporaries, since a computation may swap its parameters).
  Status Assign(const Instruction* n, const std::vector<std::string>& vars, const std::vector<std::string>& values);
  // Sort's (topk's) results at `idx`, read through its permutation.
  StatusOr<std::vector<std::string>> SortResults(const Instruction* n, const std::vector<std::string>& idx);
  // Whether record a sorts before record b: a bool temporary.
  StatusOr<std::string> SortBefore(const Instruction& sort, const std::vector<std::string>& a, const std::vector<std::string>& b,
                                   const std::string& ia, const std::string& ib);
  // The sort keys of element `j` of the line whose other dims are `line`.
  StatusOr<std::vector<std::string>> SortKeys(const Instruction& sort, const std::vector<std::string>& line, const std::string& j);
  // Emits a scalar computation applied to `args`; a tuple root gives several values.
  StatusOr<std::vector<std::string>> Apply(const Computation& c, const std::vector<std::string>& args);
  Layout LayoutOf(const Instruction* n) const;
  // The logical dim of `n` that is unit-stride in memory (through
  // elementwise ops to the buffer that feeds them); -1 for scalars.
  int64_t UnitStrideDim(const Instruction* n) const;
  // The layout of the buffer `n` reads through elementwise ops (its own if
  // it is one); the default layout where none feeds it.
  Layout LeafLayout(const Instruction* n) const;
  // Statements that put element `v` at slot (ew, es) of `outv`.
  std::string StoreElement(ElementType t, const std::string& v);
  // Declares ew and es, the word and slot of element e of the output vector.
  std::string VectorSlot(int per_vector) const;
  StatusOr<std::string> PhysicalIndex(const Shape& shape, const Layout& layout, const std::vector<std::string>& idx);
  Status Use(ElementType t, const Instruction& n);
  std::string Temp(const std::string& type, const std::string& expr);
  std::string Helper(const std::string& name, const std::string& definition);
  std::string Bits64(ElementType t, const std::string& x);
  std::string FromBits64(ElementType t, const std::string& b);

  const TargetFeatures& target_;
  BufferLayoutFn buffer_layout_;
  PlannedBufferFn planned_buffer_;
  const ReduceSplit* split_ = nullptr;  // EmitReduce writes the first pass's partials
  const Instruction* root_ = nullptr;
  Shape out_;
  Layout out_layout_;
  std::vector<std::string> root_index_;
  std::string body_;
  std::string shared_;  // shared-memory declarations of a workgroup kernel
  bool out_readable_ = false;  // the kernel reads its output buffer too (in-place passes)
  int next_temp_ = 0;
  // Values already emitted, by instruction and index; loops save and
  // restore these, since what a loop body defines is out of scope after it.
  std::map<std::string, std::string> memo_;
  std::map<std::string, std::vector<std::string>> tuple_memo_;
  std::map<const Instruction*, std::string> bound_;  // parameters of a computation being applied
  std::vector<const Instruction*> inputs_;
  std::map<const Instruction*, int> binding_;
  std::map<std::string, std::string> helpers_;
  LibraryNeeds needs_;
  bool int64_ = false;
  bool reads_parameter_sizes_ = false, writes_sizes_ = false;
  int out_bits_ = 0;  // storage bits of one output element
  std::set<std::string> vector_loads_;  // inputs read as whole uvec4s
  std::set<std::string> wide_buffers_;  // buffers accessed through their u64vec2 alias
  std::set<std::string> quad_buffers_;  // buffers accessed through their u64vec4 alias
  // Block mode (a register transpose): each invocation owns a block x block
  // square of logical dims a (the output's unit-stride dim) and b (some
  // input's); ka/kb index the element inside it. A row of the block is
  // block / 4 uvec4s.
  int64_t block_a_ = -1, block_b_ = -1;
  int block_ = 4;
  bool transposed_operand_tiled_ = false;  // the operand that set block_b_ has tiles
  std::vector<std::string> block_base_;          // the block's first logical index
  // The block's rows of each buffer read in block mode, by array name
  // (buffer + "_r": rows along b, one per ka; "_c": along a, one per kb).
  // All loads are emitted before any unpacking: llvmpipe keeps their order,
  // and issuing them together overlaps their latency (8x8 relayout: 0.86 of
  // the stream kernel against 0.79 interleaved).
  struct BlockRows {
    std::string loads, unpacks;
  };
  std::map<std::string, BlockRows> block_rows_;

  // Finds the unit-stride dim b (in output dims) of a buffer read at a
  // permutation of the root index, for block mode; -1 if none differs from a.
  // perm maps n's dims to output dims (transposes on the way permute it).
  int64_t FindTransposedOperand(const Instruction* n, int64_t a, const std::vector<int64_t>& perm,
                                std::set<const Instruction*>& seen);
  StatusOr<KernelSource> EmitBlocked(const Instruction& root, const TiledIndexMap& out_map);
  // Whether the fused computation under `n` is a few cheap ops (moves,
  // integer and sign ops, add/subtract/multiply, selects), so that 8x8
  // blocks may repeat it for each of their 64 elements; `budget` counts
  // the ops still allowed.
  bool CheapToRepeat(const Instruction* n, int& budget) const;
  std::string Prologue(uint32_t local_size, const std::string& name) const;
  // A whole uvec4 of a buffer ("in0", "out0"), read or written. On a CPU
  // driver with 64-bit integers this goes through a u64vec2 alias of the
  // buffer: llvmpipe moves each component of each invocation separately,
  // so two 64-bit words cost about half of four 32-bit ones (column sums:
  // 1.07 of the stream kernel against 0.8).
  std::string ReadVector(const std::string& buffer, const std::string& index);
  std::string WriteVector(const std::string& buffer, const std::string& index, const std::string& value);
  // Adds to `rows` the statements that load row `row` of a block (block_ /
  // 4 uvec4s from the block_-aligned physical element `at`) into `array`;
  // WriteBlockRow gives the statement that stores one.
  void ReadBlockRow(const std::string& buffer, const std::string& at, const std::string& array, int row, BlockRows& rows);
  std::string WriteBlockRow(const std::string& at, const std::string& array, int row);
  // Word (ka, kb) of a block held as rows along the second index.
  std::string BlockWord(const std::string& array, const std::string& row, const std::string& column) const;
  std::string MemoKey(const Instruction* n, const std::vector<std::string>& idx) const;
};

}  // namespace vkxla
