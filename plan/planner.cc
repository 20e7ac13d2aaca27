#include "plan/planner.h"

#include "ops/collectives.h"

#include <algorithm>
#include <set>

#include "ir/layout_index.h"
#include "ir/tiled_index.h"
#include "ops/computation_signature.h"
#include "ops/control_flow.h"
#include "ops/gather_scatter_plan.h"
#include "ops/reduction_shapes.h"
#include "plan/barriers.h"
#include "plan/submission_split.h"
#include "plan/buffer_assignment.h"
#include "plan/collective_moves.h"
#include "plan/cost_model.h"
#include "plan/fft_config.h"
#include "plan/dft_expansion.h"
#include "plan/fft_expansion.h"
#include "plan/rng_expansion.h"
#include "plan/linalg_expansion.h"
#include "plan/conv_expansion.h"
#include "plan/batch_norm_expansion.h"
#include "plan/topk_expansion.h"
#include "plan/dynamic_padder.h"
#include "plan/entry_parameters.h"
#include "plan/fusion.h"
#include "plan/in_place_update.h"
#include "plan/trip_count.h"

namespace vkxla {
namespace {

bool IsSort(const Instruction* i) { return i->opcode == Opcode::kSort || i->opcode == Opcode::kTopK; }

Shape WithLayout(Shape s) {
  if (!s.has_layout()) s.set_layout(s.layout_or_default());
  return s;
}

void LeafShapes(const Shape& s, std::vector<Shape>& out) {
  if (s.IsToken()) return;  // tokens hold no data
  if (!s.IsTuple()) {
    out.push_back(WithLayout(s));
    return;
  }
  for (const Shape& e : s.tuple_shapes()) LeafShapes(e, out);
}

// Whether two outputs sit in memory the same way, so one invocation owns
// the same elements of both.
bool SamePlacement(const Shape& a, const Shape& b) {
  auto bits_a = ElementStorageBits(a.element_type(), a.layout_or_default());
  auto bits_b = ElementStorageBits(b.element_type(), b.layout_or_default());
  return a.dims() == b.dims() && a.layout_or_default() == b.layout_or_default() && bits_a.ok() && bits_b.ok() &&
         *bits_a == *bits_b && BitWidth(a.element_type()) == BitWidth(b.element_type());
}

class Planner {
 public:
  Planner(const Module& module, const TargetFeatures& target) : module_(module) {
    p_.module_name = module.name();
    p_.target = target;
  }

  StatusOr<Program> Run() {
    const Computation& entry = *module_.entry();
    const ProgramShape shape = module_.EntryProgramShape();
    for (const Shape& s : shape.parameters)  // plan/entry_parameters.h flattens the others
      if (!s.IsArray()) return Internal("entry parameter " + s.ToString() + " is not an array");
    VKXLA_ASSIGN_OR_RETURN(std::vector<ValueRef> leaves, ValueLeaves(entry.root()));
    std::vector<Shape> leaf_shapes;
    LeafShapes(shape.result, leaf_shapes);
    if (leaf_shapes.size() != leaves.size()) return Internal("result leaves and result shapes disagree");
    VKXLA_RETURN_IF_ERROR(DeclareParameters(entry, shape));
    planned_.insert(&entry);
    Uploads();
    VKXLA_RETURN_IF_ERROR(PlanComputation(entry, leaves, leaf_shapes, /*entry=*/true, p_.steps));
    Downloads();
    VKXLA_RETURN_IF_ERROR(FinishProgram(p_));
    return std::move(p_);
  }

 private:
  int Declare(std::string name, BufferKind kind, MemoryKind memory, const Shape& shape) {
    BufferDecl b;
    b.name = std::move(name);
    b.kind = kind;
    b.memory = memory;
    b.shape = WithLayout(shape);
    StatusOr<int64_t> bytes = PhysicalByteSize(b.shape);
    b.bytes = std::max<uint64_t>(16, (static_cast<uint64_t>(bytes.ok() ? *bytes : 0) + 15) / 16 * 16);
    return p_.AddBuffer(std::move(b));
  }

  Status DeclareParameters(const Computation& entry, const ProgramShape& shape) {
    const std::vector<Instruction*> params = entry.parameters();
    bool dynamic = false;
    for (size_t i = 0; i < params.size(); ++i) {
      VKXLA_RETURN_IF_ERROR(PhysicalByteSize(WithLayout(shape.parameters[i])).status());
      const int d = Declare("%" + params[i]->name, BufferKind::kParameter, MemoryKind::kDevice, shape.parameters[i]);
      const int s = Declare("%" + params[i]->name + ".staging", BufferKind::kStaging, MemoryKind::kHost, shape.parameters[i]);
      p_.buffers[d].parameter = p_.buffers[s].parameter = static_cast<int64_t>(i);
      p_.parameter_device.push_back(d);
      p_.parameter_staging.push_back(s);
      p_.value_buffer[ValueRef{params[i], -1}] = d;
      dynamic = dynamic || !params[i]->shape.is_static();
    }
    if (dynamic)
      p_.parameter_sizes = Declare("parameter sizes", BufferKind::kParameterSizes, MemoryKind::kHost,
                                   Shape(ElementType::kU32, {static_cast<int64_t>(params.size()) * kMaxDynamicRank}));
    return OkStatus();
  }

  Status DeclareConstants(const FusionChoice& fusion) {
    for (const auto& [v, why] : fusion.materialized) {
      if (v.inst->opcode != Opcode::kConstant) continue;
      VKXLA_RETURN_IF_ERROR(PhysicalByteSize(WithLayout(v.inst->shape)).status());
      const int b = Declare("%" + v.inst->name, BufferKind::kConstant, MemoryKind::kHost, v.inst->shape);
      p_.buffers[b].constant = v.inst;
      p_.value_buffer[v] = b;
    }
    return OkStatus();
  }

  // The shape a group writes `v` in: the first result leaf's layout where v
  // is returned, else the default one.
  Shape OutputShape(const ValueRef& v) const {
    for (size_t i = 0; i < leaves_.size(); ++i)
      if (leaves_[i] == v) return leaf_shapes_[i];
    return WithLayout(v.shape());
  }

  // The host buffer of buffer b's run-time sizes (its array has dynamic dims).
  int DeclareSizes(int b, BufferKind kind) {
    const BufferDecl& d = p_.buffers[b];
    const int sizes = Declare(d.name + ".sizes", kind, MemoryKind::kHost,
                              Shape(ElementType::kU32, {std::max<int64_t>(1, d.shape.rank())}));
    p_.dynamic_sizes[b] = sizes;
    return sizes;
  }

  int SizesOf(int b) const {
    auto it = p_.dynamic_sizes.find(b);
    return it == p_.dynamic_sizes.end() ? -1 : it->second;
  }

  int DeclareOutput(FusionGroup& g, const ValueRef& v, const Shape& shape) {
    auto in_place = in_place_.find(v);
    // Written into the loop state it updates (an elementwise update only by
    // a loop kernel, which reads each element where it writes it).
    if (in_place != in_place_.end() && (g.kind == KernelKind::kLoop || v.inst->opcode == Opcode::kDynamicUpdateSlice)) {
      g.outputs.push_back({v, in_place->second, -1});
      p_.value_buffer[v] = in_place->second;
      return in_place->second;
    }
    const int b = Declare(v.ToString(), BufferKind::kTemporary, MemoryKind::kDevice, shape);
    GroupOutput out{v, b, -1};
    if (!shape.is_static()) out.sizes_buffer = DeclareSizes(b, BufferKind::kResultSizes);
    g.outputs.push_back(out);
    if (!p_.value_buffer.count(v)) p_.value_buffer[v] = b;
    return b;
  }

  FusionGroup& NewGroup(KernelKind kind, const Instruction* hero) {
    FusionGroup g;
    g.id = static_cast<int>(p_.groups.size());
    g.kind = kind;
    g.hero = hero;
    p_.groups.push_back(std::move(g));
    return p_.groups.back();
  }

  Status AddGroups(const GroupChoice& choice) {
    if (choice.kind == KernelKind::kSort) {
      FusionGroup& g = NewGroup(KernelKind::kSort, choice.hero);
      VKXLA_ASSIGN_OR_RETURN(SortConfig c, ChooseSortConfig(*choice.hero, p_.target));
      const int perm = Declare("%" + choice.hero->name + ".permutation", BufferKind::kTemporary, MemoryKind::kDevice,
                               PermutationShape(c));
      g.scratch.push_back(perm);
      p_.permutation_buffer[choice.hero] = perm;
      if (c.algorithm == SortConfig::Algorithm::kRadix) {
        const std::string name = "%" + choice.hero->name;
        // Counts, and the keys' images in two planes beside the permutation's.
        g.scratch.push_back(Declare(name + ".radix_counts", BufferKind::kScratch, MemoryKind::kDevice,
                                    Shape(ElementType::kU32, {c.RadixCountWords()})));
        g.scratch.push_back(Declare(name + ".radix_images", BufferKind::kScratch, MemoryKind::kDevice,
                                    Shape(ElementType::kU32, {2 * c.RadixWords() * c.RadixPlane()})));
      }
      if (c.algorithm == SortConfig::Algorithm::kBlockMerge && c.merges > 0)
        g.scratch.push_back(Declare("%" + choice.hero->name + ".merge_runs", BufferKind::kScratch, MemoryKind::kDevice,
                                    PermutationShape(c)));
      if (c.algorithm == SortConfig::Algorithm::kRadixSelect)
        g.scratch.push_back(Declare("%" + choice.hero->name + ".select_counts", BufferKind::kScratch, MemoryKind::kDevice,
                                    Shape(ElementType::kU32, {c.SelectCountWords()})));
      g.config = std::move(c);
      return OkStatus();
    }
    if (choice.kind != KernelKind::kReduce) {
      // Scans, windows and scatters write every result: passes carry the
      // partial results (a scan's carries) from one to the next in them.
      FusionGroup& g = NewGroup(choice.kind, choice.hero);
      g.row_stages = choice.row_stages;
      std::vector<ValueRef> outputs = choice.outputs;
      if (choice.kind != KernelKind::kLoop && choice.hero->shape.IsTuple())
        for (size_t k = 0; k < choice.hero->shape.tuple_shapes().size(); ++k) {
          const ValueRef v{choice.hero, static_cast<int64_t>(k)};
          if (std::find(outputs.begin(), outputs.end(), v) == outputs.end()) outputs.push_back(v);
        }
      for (const ValueRef& v : outputs) DeclareOutput(g, v, OutputShape(v));
      if (choice.kind == KernelKind::kScatter && !g.outputs.empty()) {
        // A last-update-wins scatter's winner words, one per result element.
        const Shape& out = p_.buffers[g.outputs[0].buffer].shape;
        if (ChooseScatterMode(*choice.hero, out, p_.target) == ScatterConfig::Mode::kLastWins) {
          VKXLA_ASSIGN_OR_RETURN(TiledIndexMap map, TiledIndexMap::Create(out));
          g.scratch.push_back(Declare("%" + choice.hero->name + ".winners", BufferKind::kScratch, MemoryKind::kDevice,
                                      Shape(ElementType::kU32, {std::max<int64_t>(1, map.physical_element_count())})));
        }
      }
      return OkStatus();
    }
    // A reduce's results share one kernel where they sit alike in memory;
    // the rest get a kernel each (recomputing the fold). Operands the
    // reduce also writes ride with the first.
    std::vector<std::vector<ValueRef>> sets;
    std::vector<ValueRef> operands;
    const Instruction* h = choice.hero;
    for (const ValueRef& v : choice.outputs) {
      if (v.inst != h && std::find(h->operands.begin(), h->operands.end(), v.inst) != h->operands.end()) {
        operands.push_back(v);
        continue;
      }
      bool placed = false;
      for (auto& set : sets)
        if (!placed && SamePlacement(OutputShape(set[0]), OutputShape(v))) {
          set.push_back(v);
          placed = true;
        }
      if (!placed) sets.push_back({v});
    }
    for (size_t k = 0; k < sets.size(); ++k) {
      FusionGroup& g = NewGroup(KernelKind::kReduce, choice.hero);
      for (const ValueRef& v : sets[k]) DeclareOutput(g, v, OutputShape(v));
      if (k == 0)
        for (const ValueRef& v : operands) DeclareOutput(g, v, OutputShape(v));
    }
    return OkStatus();
  }

  // Plans `c` (whose parameters' values are bound to buffers) into `out`:
  // its fusion groups and, for each while, conditional or call in it, the
  // steps of what it calls. `results` are the values the caller reads,
  // written in `result_shapes`' layouts.
  Status PlanComputation(const Computation& c, const std::vector<ValueRef>& results,
                         const std::vector<Shape>& result_shapes, bool entry, StepList& out) {
    if (depth_ >= kMaxControlDepth)
      return InvalidArgument("computation " + c.name() + ": control flow nests deeper than " +
                             std::to_string(kMaxControlDepth) + " levels");
    const Computation* saved_comp = comp_;
    std::vector<ValueRef> saved_leaves = std::move(leaves_);
    std::vector<Shape> saved_shapes = std::move(leaf_shapes_);
    comp_ = &c;
    leaves_ = results;
    leaf_shapes_ = result_shapes;
    ++depth_;
    Status status = PlanCurrent(entry, out);
    --depth_;
    comp_ = saved_comp;
    leaves_ = std::move(saved_leaves);
    leaf_shapes_ = std::move(saved_shapes);
    return status;
  }

  struct Item {
    int group = -1;                       // a fusion group, or
    const Instruction* control = nullptr;  // a while, conditional or call
  };

  Status PlanCurrent(bool entry, StepList& out) {
    VKXLA_ASSIGN_OR_RETURN(FusionChoice fusion, ChooseFusion(*comp_, leaves_, p_.target));
    VKXLA_RETURN_IF_ERROR(DeclareConstants(fusion));
    std::vector<Item> items;
    auto new_groups = [&](size_t first) {
      for (size_t k = first; k < p_.groups.size(); ++k) items.push_back({static_cast<int>(k), nullptr});
    };
    for (const GroupChoice& g : fusion.groups) {
      if (g.control) {
        VKXLA_RETURN_IF_ERROR(DeclareControlResults(*g.hero));
        items.push_back({-1, g.hero});
        continue;
      }
      const size_t first = p_.groups.size();
      VKXLA_RETURN_IF_ERROR(AddGroups(g));
      new_groups(first);
    }
    if (entry) {
      const size_t first = p_.groups.size();
      VKXLA_RETURN_IF_ERROR(DeclareResults());
      new_groups(first);
    }
    for (const Item& it : items)
      if (it.group >= 0) VKXLA_RETURN_IF_ERROR(Configure(p_.groups[it.group]));
    for (const Item& it : items) {
      if (it.group >= 0) LayOutGroup(p_.groups[it.group], out);
      else VKXLA_RETURN_IF_ERROR(PlanControl(*it.control, out));
    }
    return OkStatus();
  }

  // A control op's results (a while's state, a conditional's or a call's
  // results) get buffers of their own, which its readers read.
  Status DeclareControlResults(const Instruction& h) {
    VKXLA_ASSIGN_OR_RETURN(std::vector<ValueRef> leaves, ValueLeaves(&h));
    std::vector<int>& buffers = control_buffers_[&h];
    for (const ValueRef& v : leaves) {
      // The FFT library writes dense row-major arrays; readers read the
      // result through that layout.
      const Shape shape = h.opcode == Opcode::kFft ? Dense(v.shape()) : v.shape();
      const int b = Declare(v.ToString(), BufferKind::kTemporary, MemoryKind::kDevice, shape);
      // A dynamic leaf carries its sizes alongside (a loop may change them
      // every trip); the kernels that fill it write them.
      if (!v.shape().is_static()) DeclareSizes(b, BufferKind::kTemporary);
      p_.value_buffer[v] = b;
      buffers.push_back(b);
    }
    return OkStatus();
  }

  StatusOr<std::vector<int>> LeafBuffers(const Instruction* operand) const {
    VKXLA_ASSIGN_OR_RETURN(std::vector<ValueRef> leaves, ValueLeaves(operand));
    std::vector<int> buffers;
    for (const ValueRef& v : leaves) {
      auto it = p_.value_buffer.find(v);
      if (it == p_.value_buffer.end()) return Internal(v.ToString() + ": an operand of control flow without a buffer");
      buffers.push_back(it->second);
    }
    return buffers;
  }

  // The computation to plan for one call site: `c` itself the first time,
  // a copy of it after that (its values need buffers of their own).
  const Computation& ForSite(const Computation* c) {
    if (planned_.insert(c).second) return *c;
    std::shared_ptr<const Computation> copy = c->Clone(c->name() + ".site" + std::to_string(p_.clones.size() + 1));
    p_.clones.push_back(copy);
    planned_.insert(copy.get());
    return *copy;
  }

  // Plans computation `callee` with parameter i bound to the buffers
  // `args[i]` (its leaves) and copies its result leaves into `dst`; in a loop
  // body (`loop_body`), a result may update its state leaf in place
  // (plan/in_place_update.h).
  Status PlanCalled(const Computation* callee, const std::vector<std::vector<int>>& args, const std::vector<int>& dst,
                    StepList& out, bool loop_body = false) {
    const Computation& c = ForSite(callee);
    const std::vector<Instruction*> params = c.parameters();
    if (params.size() != args.size()) return Internal("computation " + c.name() + ": parameters and arguments disagree");
    for (size_t i = 0; i < params.size(); ++i) {
      VKXLA_ASSIGN_OR_RETURN(std::vector<ValueRef> leaves, ValueLeaves(params[i]));
      if (leaves.size() != args[i].size()) return Internal("computation " + c.name() + ": parameter leaves disagree");
      for (size_t k = 0; k < leaves.size(); ++k) p_.value_buffer[leaves[k]] = args[i][k];
    }
    VKXLA_ASSIGN_OR_RETURN(std::vector<ValueRef> results, ValueLeaves(c.root()));
    if (results.size() != dst.size()) return Internal("computation " + c.name() + ": result leaves disagree");
    std::vector<Shape> shapes;
    for (int b : dst) shapes.push_back(p_.buffers[b].shape);
    if (loop_body) {
      VKXLA_ASSIGN_OR_RETURN(std::vector<ValueRef> state, ValueLeaves(params[0]));
      for (size_t k = 0; k < results.size() && k < state.size(); ++k) {
        bool elsewhere = false;  // the leaf also returned in another slot
        for (size_t j = 0; j < results.size(); ++j) elsewhere = elsewhere || (j != k && results[j] == state[k]);
        if (!elsewhere && UpdatesInPlace(c, results[k], state[k])) in_place_[results[k]] = dst[k];
      }
    }
    VKXLA_RETURN_IF_ERROR(PlanComputation(c, results, shapes, /*entry=*/false, out));
    return CopyLeaves(results, dst, out);
  }

  Step CopyOf(int src, int dst) const {
    Step s;
    s.op = CopyStep{src, dst, p_.buffers[dst].bytes};
    s.reads = {src};
    s.writes = {dst};
    return s;
  }

  bool SameBytes(int a, int b) const {
    const BufferDecl &x = p_.buffers[a], &y = p_.buffers[b];
    return x.bytes == y.bytes && x.shape.element_type() == y.shape.element_type() && x.shape.dims() == y.shape.dims() &&
           x.shape.layout_or_default() == y.shape.layout_or_default();
  }

  // `value` into buffer `dst` by a relayout kernel (which also writes its
  // sizes where dst has dynamic dims).
  Status Relayout(const ValueRef& value, int dst, StepList& out) {
    FusionGroup& g = NewGroup(KernelKind::kLoop, value.inst);
    g.relayout = true;
    g.outputs.push_back({value, dst, SizesOf(dst)});
    const int id = g.id;
    VKXLA_RETURN_IF_ERROR(Configure(p_.groups[id]));
    LayOutGroup(p_.groups[id], out);
    return OkStatus();
  }

  // Copies each of `values` into dst[k] (a plain copy where the bytes sit
  // alike, a relayout kernel otherwise). A value whose buffer is itself
  // one of `dst` (a loop body returning its state reordered) goes through
  // a temporary first, so no copy reads what another already overwrote.
  Status CopyLeaves(const std::vector<ValueRef>& values, const std::vector<int>& dst, StepList& out) {
    const std::set<int> targets(dst.begin(), dst.end());
    std::vector<int> src;
    for (const ValueRef& v : values) {
      auto it = p_.value_buffer.find(v);
      if (it == p_.value_buffer.end()) return Internal(v.ToString() + ": a result of a called computation without a buffer");
      src.push_back(it->second);
    }
    std::vector<bool> staged(values.size(), false);
    // An array with dynamic dims takes its sizes along: copied from the
    // sizes buffer of its source, else written by the relayout kernel.
    auto by_copy = [&](int from, int to) { return SameBytes(from, to) && (SizesOf(to) < 0 || SizesOf(from) >= 0); };
    auto copy = [&](int from, int to) {
      out.push_back(CopyOf(from, to));
      if (SizesOf(to) >= 0) out.push_back(CopyOf(SizesOf(from), SizesOf(to)));
    };
    for (size_t k = 0; k < values.size(); ++k) {
      if (src[k] == dst[k] || !targets.count(src[k])) continue;
      const int t = Declare(values[k].ToString() + ".carried", BufferKind::kTemporary, MemoryKind::kDevice, p_.buffers[dst[k]].shape);
      if (SizesOf(dst[k]) >= 0) DeclareSizes(t, BufferKind::kTemporary);
      if (by_copy(src[k], t)) copy(src[k], t);
      else VKXLA_RETURN_IF_ERROR(Relayout(values[k], t, out));
      src[k] = t;
      staged[k] = true;
    }
    for (size_t k = 0; k < values.size(); ++k) {
      if (src[k] == dst[k]) continue;
      if (staged[k] || by_copy(src[k], dst[k])) copy(src[k], dst[k]);
      else VKXLA_RETURN_IF_ERROR(Relayout(values[k], dst[k], out));
    }
    return OkStatus();
  }

  // A host copy of `buffer`, laid out alike (a copy step moves the bytes).
  int HostCopyOf(int buffer, const std::string& name) {
    return Declare(name, BufferKind::kScratch, MemoryKind::kHost, p_.buffers[buffer].shape);
  }

  // Infeed, outfeed and host custom calls: operands copied to host
  // buffers, the host's work, results copied back to the device.
  Status PlanHostStep(const Instruction& h, const std::vector<int>& results, StepList& out) {
    HostStep host;
    size_t data_operands = 0;  // operands the host reads (the rest are tokens)
    switch (h.opcode) {
      case Opcode::kInfeed: host.kind = HostStep::Kind::kInfeed; break;
      case Opcode::kRecv: host.kind = HostStep::Kind::kRecv; break;
      case Opcode::kOutfeed: host.kind = HostStep::Kind::kOutfeed, data_operands = 1; break;
      case Opcode::kSend: host.kind = HostStep::Kind::kSend, data_operands = 1; break;
      case Opcode::kRngGetAndUpdateState: host.kind = HostStep::Kind::kRngCounter; break;
      case Opcode::kReplicaId: case Opcode::kPartitionId: host.kind = HostStep::Kind::kProcess; break;
      default:
        if (IsCollectiveOpcode(h.opcode)) {
          host.kind = HostStep::Kind::kProcess, data_operands = h.operands.size();
          break;
        } host.kind = HostStep::Kind::kCallback, data_operands = h.operands.size(); break;
    }
    host.op = &h;
    std::vector<int> operand_leaves;
    for (size_t i = 0; i < data_operands; ++i) {
      VKXLA_ASSIGN_OR_RETURN(std::vector<int> leaves, LeafBuffers(h.operands[i]));
      operand_leaves.insert(operand_leaves.end(), leaves.begin(), leaves.end());
    }
    for (int r : results)
      if (SizesOf(r) >= 0)
        return Unimplemented(std::string(OpcodeName(h.opcode)) + " " + h.Describe() + ": result " +
                             p_.buffers[r].shape.ToString() + " has a dynamic dimension, which host steps do not size yet");
    const bool on_device = IsCollectiveOpcode(h.opcode) && OnDevice(h, operand_leaves, results);
    StepList& in = on_device ? host.stage_in : out;
    for (int b : operand_leaves) {
      const int staged = HostCopyOf(b, p_.buffers[b].name + ".to_host");
      in.push_back(CopyOf(b, staged));
      host.inputs.push_back(staged);
    }
    StepList back;
    for (int r : results) {
      const int staged = HostCopyOf(r, p_.buffers[r].name + ".from_host");
      host.outputs.push_back(staged);
      back.push_back(CopyOf(staged, r));
    }
    Step s;
    s.reads = host.inputs;
    s.writes = host.outputs;
    if (on_device) {
      host.device_inputs = operand_leaves;
      host.device_outputs = results;
      host.stage_out = std::move(back);
      s.reads.insert(s.reads.end(), operand_leaves.begin(), operand_leaves.end());
      s.writes.insert(s.writes.end(), results.begin(), results.end());
    }
    s.op = std::move(host);
    out.push_back(std::move(s));
    if (!on_device)
      for (Step& b : back) out.push_back(std::move(b));
    return OkStatus();
  }

  // A collective whose members may run it on their device (HostStep's
  // device_inputs): an all-reduce of sums or products of natively folded
  // types, every leaf's operand and result alike in bytes and layout, so
  // the fold is one walk over the buffers' words; a reduce-scatter of the
  // same whose blocks are runs of bytes; or one that only moves elements
  // between buffers laid out for byte copies.
  bool OnDevice(const Instruction& h, const std::vector<int>& operands, const std::vector<int>& results) const {
    for (const std::vector<int>* list : {&operands, &results})
      for (int b : *list)
        if (SizesOf(b) >= 0) return false;
    if (!CanFoldInPlace(h)) {
      std::vector<Shape> in, out;
      for (int b : operands) in.push_back(p_.buffers[b].shape);
      for (int b : results) out.push_back(p_.buffers[b].shape);
      return MovesBytesBetweenBuffers(h, in, out) || ScatteredBlocksAreRuns(h, in, out);
    }
    if (operands.size() != results.size()) return false;
    for (size_t k = 0; k < operands.size(); ++k) {
      const BufferDecl &in = p_.buffers[operands[k]], &out = p_.buffers[results[k]];
      if (!(in.shape == out.shape) || in.bytes != out.bytes) return false;
    }
    return true;
  }

  // The body's closing copies into the state that ping-pong can leave out:
  // from a buffer of the body's own (declared from `body_buffers` on, so
  // nothing outside the loop touches it) into a state buffer (or its
  // sizes) of the same bytes and memory, each buffer in one pair. Nothing
  // after them in the body reads a state buffer (CopyLeaves stages a moved
  // leaf first), so swapping the pair's roles every other trip is a
  // renaming that keeps the body's meaning.
  void FindAlternates(WhileStep& w, const std::vector<int>& state_buffers, size_t body_buffers) const {
    std::set<int> state(state_buffers.begin(), state_buffers.end()), used;
    for (int b : state_buffers)
      if (SizesOf(b) >= 0) state.insert(SizesOf(b));
    for (size_t i = w.body.size(); i-- > 0;) {
      const auto* c = std::get_if<CopyStep>(&w.body[i].op);
      if (!c) break;
      const BufferDecl &src = p_.buffers[c->src], &dst = p_.buffers[c->dst];
      const bool body_own = static_cast<size_t>(c->src) >= body_buffers;
      if (!body_own || !state.count(c->dst) || src.bytes != dst.bytes || src.bytes != c->bytes || src.memory != dst.memory ||
          used.count(c->src) || used.count(c->dst))
        continue;
      used.insert(c->src);
      used.insert(c->dst);
      w.alternates.emplace_back(c->src, c->dst);
      w.alternate_copies.push_back(i);
    }
  }

  // `s` dense and row-major (no layout given: the default).
  static Shape Dense(const Shape& s) { return Shape(s.element_type(), s.dims()); }

  // A complex-to-complex Fft (real ones were expanded): VkFFT reads a dense
  // row-major operand (a relayout kernel makes one where the operand's
  // buffer is laid out otherwise) and writes the result's buffer, working
  // in a temporary of its own.
  Status PlanFft(const Instruction& h, int result, StepList& out) {
    VKXLA_ASSIGN_OR_RETURN(FftConfig config, ChooseFftConfig(h, p_.target));
    if (h.shape.element_count() == 0) return OkStatus();
    const ValueRef operand = ValueRef::Of(h.operands[0]);
    auto it = p_.value_buffer.find(operand);
    if (it == p_.value_buffer.end()) return Internal(operand.ToString() + ": an fft operand without a buffer");
    int source = it->second;
    if (!(p_.buffers[source].shape.layout_or_default() == Layout::Descending(h.shape.rank()))) {  // fft operands are static
      source = Declare(operand.ToString() + ".dense", BufferKind::kTemporary, MemoryKind::kDevice, Dense(operand.shape()));
      VKXLA_RETURN_IF_ERROR(Relayout(operand, source, out));
    }
    if (config.lengths.empty()) {  // every transformed dim has length 1
      out.push_back(CopyOf(source, result));
      return OkStatus();
    }
    const int temp = Declare("%" + h.name + ".fft_temp", BufferKind::kScratch, MemoryKind::kDevice,
                             Shape(ElementType::kU8, {static_cast<int64_t>(std::max<uint64_t>(16, config.temp_bytes))}));
    Step s;
    s.op = ExternalStep{"vkfft", config.ToString()};
    s.reads = {source};
    s.writes = {result, temp};
    out.push_back(std::move(s));
    return OkStatus();
  }

  Status PlanControl(const Instruction& h, StepList& out) {
    const std::vector<int> results = control_buffers_.at(&h);
    switch (h.opcode) {
      case Opcode::kWhile: {
        // The state lives in the result buffers: the init is copied in, the
        // condition reads it, the body's results are copied back.
        VKXLA_ASSIGN_OR_RETURN(std::vector<ValueRef> init, ValueLeaves(h.operands[0]));
        VKXLA_RETURN_IF_ERROR(CopyLeaves(init, results, out));
        VKXLA_ASSIGN_OR_RETURN(const Computation* cond, CalledComputation(h, "condition", "the loop condition"));
        VKXLA_ASSIGN_OR_RETURN(const Computation* body, CalledComputation(h, "body", "the loop body"));
        WhileStep w;
        w.predicate = Declare("%" + h.name + ".predicate", BufferKind::kScratch, MemoryKind::kHost,
                              Shape::Scalar(ElementType::kPred));
        VKXLA_RETURN_IF_ERROR(PlanCalled(cond, {results}, {w.predicate}, w.condition));
        if (std::optional<int64_t> trips = KnownTripCount(h)) w.trip_count = *trips;
        const size_t body_buffers = p_.buffers.size();
        VKXLA_RETURN_IF_ERROR(PlanCalled(body, {results}, results, w.body, /*loop_body=*/true));
        FindAlternates(w, results, body_buffers);
        Step s;
        s.op = std::move(w);
        s.reads = s.writes = results;
        out.push_back(std::move(s));
        return OkStatus();
      }
      case Opcode::kConditional: {
        VKXLA_ASSIGN_OR_RETURN(std::vector<const Computation*> branches, ConditionalBranches(h));
        ConditionalStep c;
        c.selector = Declare("%" + h.name + ".selector", BufferKind::kScratch, MemoryKind::kHost, h.operands[0]->shape);
        VKXLA_ASSIGN_OR_RETURN(std::vector<ValueRef> selector, ValueLeaves(h.operands[0]));
        VKXLA_RETURN_IF_ERROR(CopyLeaves(selector, {c.selector}, out));
        Step s;
        for (size_t b = 0; b < branches.size(); ++b) {
          VKXLA_ASSIGN_OR_RETURN(std::vector<int> args, LeafBuffers(h.operands[b + 1]));
          s.reads.insert(s.reads.end(), args.begin(), args.end());
          c.branches.emplace_back();
          VKXLA_RETURN_IF_ERROR(PlanCalled(branches[b], {args}, results, c.branches.back()));
        }
        s.op = std::move(c);
        s.writes = results;
        out.push_back(std::move(s));
        return OkStatus();
      }
      case Opcode::kInfeed: case Opcode::kOutfeed: case Opcode::kCustomCall: case Opcode::kSend: case Opcode::kRecv:
      case Opcode::kRngGetAndUpdateState: case Opcode::kReplicaId: case Opcode::kPartitionId: case Opcode::kAllReduce:
      case Opcode::kAllGather: case Opcode::kReduceScatter: case Opcode::kAllToAll: case Opcode::kCollectivePermute:
      case Opcode::kCollectiveBroadcast: case Opcode::kRaggedAllToAll:
        return PlanHostStep(h, results, out);
      case Opcode::kFft:
        return PlanFft(h, results.at(0), out);
      default: {
        // A call: the callee's steps run in line.
        VKXLA_ASSIGN_OR_RETURN(const Computation* callee, CalledComputation(h, "to_apply", "the called computation"));
        std::vector<std::vector<int>> args;
        for (const Instruction* o : h.operands) {
          VKXLA_ASSIGN_OR_RETURN(std::vector<int> leaves, LeafBuffers(o));
          args.push_back(std::move(leaves));
        }
        return PlanCalled(callee, args, results, out);
      }
    }
  }

  Status DeclareResults() {
    for (size_t i = 0; i < leaves_.size(); ++i) {
      const ValueRef& v = leaves_[i];
      const Shape& want = leaf_shapes_[i];
      ResultLeaf leaf;
      leaf.value = v;
      auto it = p_.value_buffer.find(v);
      if (it == p_.value_buffer.end()) return Internal(v.ToString() + ": a result without a buffer");
      const BufferDecl& have = p_.buffers[it->second];
      if (have.shape.layout_or_default() == want.layout_or_default() && have.kind != BufferKind::kConstant) {
        leaf.device = it->second;
      } else {
        // Wanted in another layout (or a constant, which lives on the host):
        // a kernel copies it over.
        FusionGroup& g = NewGroup(KernelKind::kLoop, v.inst);
        g.relayout = true;
        const int b = Declare(v.ToString() + ".result" + std::to_string(i), BufferKind::kTemporary, MemoryKind::kDevice, want);
        g.outputs.push_back({v, b, want.is_static() ? -1 : DeclareSizes(b, BufferKind::kResultSizes)});
        leaf.device = b;
      }
      leaf.sizes = SizesOf(leaf.device);
      p_.buffers[leaf.device].kind = BufferKind::kResult;
      p_.buffers[leaf.device].result = static_cast<int64_t>(i);
      leaf.staging = Declare(v.ToString() + ".staging", BufferKind::kStaging, MemoryKind::kHost, p_.buffers[leaf.device].shape);
      p_.buffers[leaf.staging].result = static_cast<int64_t>(i);
      p_.results.push_back(leaf);
    }
    return OkStatus();
  }

  // What the group reads (buffers, through fused producers) and computes
  // inline; iterative, so chains of any length are fine.
  void CollectReads(FusionGroup& g, std::vector<const Instruction*> starts, const Instruction* bound) {
    const MaterializedLayoutFn materialized = GroupMaterialized(p_, g);
    std::set<int> inputs;
    std::set<const Instruction*> seen, fused;
    while (!starts.empty()) {
      const Instruction* n = starts.back();
      starts.pop_back();
      if (n == bound || !seen.insert(n).second) continue;
      const ValueRef v = ValueRef::Of(n);
      if (materialized(n)) {
        inputs.insert(p_.value_buffer.at(v));
        continue;
      }
      if ((n->opcode == Opcode::kGetTupleElement || n == v.inst) && IsSort(v.inst)) {
        inputs.insert(p_.permutation_buffer.at(v.inst));
        fused.insert(n);
        for (const Instruction* o : v.inst->operands) starts.push_back(o);
        continue;
      }
      if (n->opcode == Opcode::kGetTupleElement || n->opcode == Opcode::kTuple) {
        if (v.inst != n) starts.push_back(v.inst);
        else
          for (const Instruction* o : n->operands) starts.push_back(o);
        continue;
      }
      if (n->opcode != Opcode::kConstant) fused.insert(n);
      for (const Instruction* o : n->operands) starts.push_back(o);
    }
    g.inputs.assign(inputs.begin(), inputs.end());
    for (const auto& inst : comp_->instructions())
      if (fused.count(inst.get())) g.fused.push_back(inst.get());
  }

  // Loop trips of one element of each of `values` plus one application of
  // each called computation of `op`.
  int64_t StepTrips(const FusionGroup& g, const std::vector<const Instruction*>& values, const Instruction& op) const {
    const MaterializedLayoutFn materialized = GroupMaterialized(p_, g);
    int64_t trips = 0;
    // A value another kernel wrote is one load: its producers' loops ran
    // there (counting them split a matmul reading gelu's erf 86 ways).
    for (const Instruction* v : values)
      if (!materialized(v)) trips += InlineLoopTrips(v, materialized);
    for (const auto& [key, c] : op.called_computations) trips += ComputationLoopTrips(*c);
    return trips;
  }

  Status Configure(FusionGroup& g) {
    const Instruction& h = *g.hero;
    const MaterializedLayoutFn materialized = GroupMaterialized(p_, g);
    const std::string name = h.name;
    switch (g.kind) {
      case KernelKind::kLoop: {
        auto in_place = in_place_.find(g.outputs[0].value);
        if (!g.relayout && in_place != in_place_.end() && in_place->second == g.outputs[0].buffer &&
            g.outputs[0].value.inst->opcode == Opcode::kDynamicUpdateSlice) {
          const Instruction& dus = *g.outputs[0].value.inst;
          LoopConfig c;
          c.in_place_update = true;
          g.kernels.push_back({"update_in_place_" + name, static_cast<uint64_t>(dus.operands[1]->shape.element_count()), 256});
          CollectReads(g, std::vector<const Instruction*>(dus.operands.begin() + 1, dus.operands.end()), nullptr);
          g.config = std::move(c);
          return OkStatus();
        }
        const Shape& out = p_.buffers[g.outputs[0].buffer].shape;
        const bool whole = g.outputs[0].value.index < 0 && !g.relayout;
        VKXLA_ASSIGN_OR_RETURN(LoopConfig c, ChooseLoopConfig(whole ? &h : nullptr, out, materialized, p_.target));
        const std::string suffix = c.block ? "_block" + std::to_string(c.block) + "x" + std::to_string(c.block) : "";
        g.kernels.push_back({"fusion_" + g.outputs[0].value.ToString().substr(1) + suffix, c.invocations(),
                             c.block ? 256u : c.local_size});
        const ValueRef& v = g.outputs[0].value;
        if (g.relayout) g.inputs = {p_.value_buffer.at(v)};
        else CollectReads(g, {v.index < 0 ? v.inst : SortResultRoot(v)}, nullptr);
        g.config = std::move(c);
        return OkStatus();
      }
      case KernelKind::kReduce: {
        // Results come first among a reduce's outputs (operands it writes follow).
        const Shape& out = p_.buffers[g.outputs[0].buffer].shape;
        VKXLA_ASSIGN_OR_RETURN(ReducePlan plan, PlanReduce(h));
        std::vector<const Instruction*> operands(h.operands.begin(), h.operands.begin() + plan.arity);
        VKXLA_ASSIGN_OR_RETURN(ReduceConfig c, ChooseReduceConfig(h, out, StepTrips(g, operands, h), materialized, p_.target));
        if (c.split()) {
          for (int64_t i = 0; i < plan.arity; ++i) {
            const ElementType t = h.operands[i]->shape.element_type();
            const int64_t words = std::max(1, BitWidth(t) / 32);
            g.scratch.push_back(Declare("%" + name + ".partials" + std::to_string(i), BufferKind::kScratch, MemoryKind::kDevice,
                                        Shape(ElementType::kU32, {c.PartialElements() * words})));
          }
        }
        g.kernels.push_back({(c.mode == ReduceConfig::Mode::kColumnBlocks ? "reduce_blocks_" : "reduce_") + name +
                                 (c.split() ? "_partials" : ""),
                             c.FirstPassInvocations(), 256});
        for (size_t pass = 1; pass < c.parts.size(); ++pass)
          g.kernels.push_back({"reduce_partials_" + name + "_" + std::to_string(pass), c.FoldPassInvocations(pass), 256});
        if (c.split()) g.kernels.push_back({"reduce_" + name, c.FinalPassInvocations(), 256});
        std::vector<const Instruction*> starts(h.operands.begin(), h.operands.end());
        for (const GroupOutput& o : g.outputs) starts.push_back(o.value.inst);
        CollectReads(g, starts, &h);
        g.config = std::move(c);
        return OkStatus();
      }
      case KernelKind::kSort: {
        const SortConfig& c = std::get<SortConfig>(g.config);
        if (c.algorithm == SortConfig::Algorithm::kRadixSelect) {
          const uint32_t lanes = static_cast<uint32_t>(c.radix_lanes);
          g.kernels.push_back({"topk_select_count_" + name, c.RadixTileInvocations(), lanes});
          g.kernels.push_back({"topk_select_pick_" + name, static_cast<uint64_t>(c.lines), 64});
          g.kernels.push_back({"topk_select_gather_" + name, c.RadixTileInvocations(), lanes});
          g.kernels.push_back({"topk_select_rank_" + name, static_cast<uint64_t>(c.lines * c.select_k), 64});
          g.kernels.push_back({"topk_select_clear_" + name, static_cast<uint64_t>(c.lines * 256), 256});
        } else if (c.algorithm == SortConfig::Algorithm::kRadix) {
          const uint32_t lanes = static_cast<uint32_t>(c.radix_lanes);
          // Lines of one tile place without counts from other tiles.
          const bool one_tile = c.RadixTiles() == 1;
          g.kernels.push_back({"sort_radix_count_" + name, one_tile ? 0 : c.RadixTileInvocations(), lanes});
          g.kernels.push_back({"sort_radix_scan_" + name, one_tile ? 0 : c.RadixScanInvocations(), 256});
          g.kernels.push_back({"sort_radix_place_" + name, c.RadixTileInvocations(), lanes});
        } else {
          g.kernels.push_back({"sort_local_" + name, c.LocalInvocations(), 256});
          // Merge passes into the second plane, and back into the permutation.
          g.kernels.push_back({"sort_merge_" + name, c.MergesInto(1) ? c.MergeInvocations() : 0, 256});
          g.kernels.push_back({"sort_merge_back_" + name, c.MergesInto(2) ? c.MergeInvocations() : 0, 256});
        }
        CollectReads(g, std::vector<const Instruction*>(h.operands.begin(), h.operands.end()), &h);
        return OkStatus();
      }
      case KernelKind::kScan: {
        VKXLA_ASSIGN_OR_RETURN(ScanPlan plan, PlanScan(h));
        std::vector<const Instruction*> inputs(h.operands.begin(), h.operands.begin() + plan.inputs);
        VKXLA_ASSIGN_OR_RETURN(ScanConfig c, ChooseScanConfig(h, StepTrips(g, inputs, h), p_.target));
        g.kernels.push_back({std::string(c.parallel ? "scan_parallel_" : "scan_") + name, c.Invocations(), 256});
        CollectReads(g, std::vector<const Instruction*>(h.operands.begin(), h.operands.end()), &h);
        g.config = std::move(c);
        return OkStatus();
      }
      case KernelKind::kWindow: {
        std::vector<const Instruction*> operands = {h.operands[0]};
        if (h.opcode == Opcode::kSelectAndScatter) operands.push_back(h.operands[1]);
        else operands.assign(h.operands.begin(), h.operands.begin() + h.operands.size() / 2);
        VKXLA_ASSIGN_OR_RETURN(WindowConfig c, ChooseWindowConfig(h, p_.buffers[g.outputs[0].buffer].shape,
                                                            StepTrips(g, operands, h), p_.target));
        if (h.opcode == Opcode::kSelectAndScatter) {
          const ElementType t = h.operands[0]->shape.element_type();
          const int64_t words = std::max(1, BitWidth(t) / 32) + 1;
          g.scratch.push_back(Declare("%" + name + ".selection", BufferKind::kScratch, MemoryKind::kDevice,
                                      Shape(ElementType::kU32, {static_cast<int64_t>(c.select_invocations) * words})));
          g.kernels.push_back({"select_" + name, c.select_invocations, 256});
          g.kernels.push_back({"scatter_selected_" + name, c.invocations, 256});
        } else {
          g.kernels.push_back({"reduce_window_" + name, c.invocations, 256});
        }
        CollectReads(g, std::vector<const Instruction*>(h.operands.begin(), h.operands.end()), &h);
        g.config = std::move(c);
        return OkStatus();
      }
      case KernelKind::kScatter: {
        VKXLA_ASSIGN_OR_RETURN(ScatterPlan plan, PlanScatter(h));
        std::vector<const Instruction*> values(h.operands.begin() + plan.arity, h.operands.end());
        VKXLA_ASSIGN_OR_RETURN(ScatterConfig c, ChooseScatterConfig(h, p_.buffers[g.outputs[0].buffer].shape,
                                                              StepTrips(g, values, h), p_.target));
        if (c.mode == ScatterConfig::Mode::kLastWins) {
          g.kernels.push_back({"scatter_init_" + name, c.invocations, 256});
          g.kernels.push_back({"scatter_clear_winners_" + name, c.invocations, 256});
          g.kernels.push_back({"scatter_claim_" + name, c.update_invocations, 256});
          g.kernels.push_back({"scatter_store_winners_" + name, c.update_invocations, 256});
        } else if (c.one_pass()) {
          g.kernels.push_back({"scatter_init_" + name, c.invocations, 256});
          g.kernels.push_back({"scatter_updates_" + name, c.update_invocations, 256});
        } else {
          g.kernels.push_back({"scatter_" + name, c.invocations, 256});
        }
        CollectReads(g, std::vector<const Instruction*>(h.operands.begin(), h.operands.end()), &h);
        g.config = std::move(c);
        return OkStatus();
      }
      case KernelKind::kTriangular: {
        VKXLA_ASSIGN_OR_RETURN(TriangularConfig c, ChooseTriangularConfig(h));
        g.kernels.push_back({std::string(h.opcode == Opcode::kCholesky ? "cholesky_" : "triangular_solve_") + name,
                             static_cast<uint64_t>(c.systems), 64});
        CollectReads(g, std::vector<const Instruction*>(h.operands.begin(), h.operands.end()), &h);
        g.config = std::move(c);
        return OkStatus();
      }
      case KernelKind::kRow: {
        // The fusion's stages; what the outputs read is computed inline.
        std::vector<const Instruction*> starts;
        for (const GroupOutput& o : g.outputs) starts.push_back(o.value.inst);
        CollectReads(g, starts, nullptr);
        VKXLA_ASSIGN_OR_RETURN(RowConfig c, ChooseRowConfig(g.row_stages, g.fused, StepTrips(g, starts, h), materialized, p_.target));
        g.kernels.push_back({"row_" + name, c.Invocations(), c.WorkgroupSize()});
        g.config = std::move(c);
        return OkStatus();
      }
      case KernelKind::kMatmul: {
        VKXLA_ASSIGN_OR_RETURN(MatmulConfig c, ChooseMatmulConfig(
                                          h, StepTrips(g, std::vector<const Instruction*>(h.operands.begin(), h.operands.end()), h),
                                          materialized, p_.target));
        if (c.split()) {
          const int64_t words = std::max(1, BitWidth(MatmulAccumulator(h.shape.element_type())) / 32);
          g.scratch.push_back(Declare("%" + name + ".partials", BufferKind::kScratch, MemoryKind::kDevice,
                                      Shape(ElementType::kU32, {c.splits * c.batch * c.m * c.n * words})));
        }
        g.kernels.push_back({"matmul_" + name + (c.split() ? "_partials" : ""), c.Invocations(), c.local_size});
        if (c.split()) g.kernels.push_back({"matmul_sum_" + name, c.SumInvocations(), 256});
        std::vector<const Instruction*> starts(h.operands.begin(), h.operands.end());
        for (const GroupOutput& o : g.outputs) starts.push_back(o.value.inst);
        CollectReads(g, starts, &h);
        g.config = std::move(c);
        return OkStatus();
      }
    }
    return Internal("unknown kernel kind");
  }

  // The get-tuple-element instruction of the entry that reads `v`, a
  // sort's result.
  const Instruction* SortResultRoot(const ValueRef& v) const {
    for (const auto& i : comp_->instructions())
      if (i->opcode == Opcode::kGetTupleElement && ValueRef::Of(i.get()) == v) return i.get();
    return v.inst;
  }

  Step DispatchOf(const FusionGroup& g, int kernel, std::vector<uint32_t> push, bool reads_outputs) {
    Step s;
    s.op = DispatchStep{g.id, kernel, std::move(push)};
    s.reads = g.inputs;
    s.reads.insert(s.reads.end(), g.scratch.begin(), g.scratch.end());
    for (const GroupOutput& o : g.outputs) {
      if (reads_outputs) s.reads.push_back(o.buffer);
      s.writes.push_back(o.buffer);
      if (o.sizes_buffer >= 0) s.writes.push_back(o.sizes_buffer);
    }
    s.writes.insert(s.writes.end(), g.scratch.begin(), g.scratch.end());
    return s;
  }

  void Uploads() {
    for (size_t i = 0; i < p_.parameter_device.size(); ++i)
      p_.steps.push_back(CopyOf(p_.parameter_staging[i], p_.parameter_device[i]));
  }

  void Downloads() {
    for (const ResultLeaf& r : p_.results) p_.steps.push_back(CopyOf(r.device, r.staging));
  }

  void LayOutGroup(const FusionGroup& g, StepList& out) {
    auto dispatch = [&](int kernel, std::vector<uint32_t> push = {}, bool reads_outputs = false) {
      if (g.kernels[kernel].invocations == 0) return;  // an empty array: nothing to compute
      out.push_back(DispatchOf(g, kernel, std::move(push), reads_outputs));
    };
    if (const auto* c = std::get_if<SortConfig>(&g.config)) {
      for (const SortConfig::Pass& pass : c->passes) dispatch(pass.kernel, pass.push_constants);
    } else if (const auto* c = std::get_if<ScanConfig>(&g.config)) {
      for (int64_t pass = 0; pass < c->passes; ++pass) dispatch(0, {static_cast<uint32_t>(pass)}, pass > 0);
    } else if (const auto* c = std::get_if<WindowConfig>(&g.config)) {
      // reduce-window, or select-and-scatter's selection: passes over the window.
      for (int64_t pass = 0; pass < c->passes; ++pass) dispatch(0, {static_cast<uint32_t>(pass)}, pass > 0);
      // select-and-scatter's scatter: passes over the windows that may contain each element.
      if (g.kernels.size() > 1)
        for (int64_t pass = 0; pass < c->containing_passes; ++pass) dispatch(1, {static_cast<uint32_t>(pass)}, pass > 0);
    } else if (const auto* c = std::get_if<ScatterConfig>(&g.config)) {
      if (c->mode == ScatterConfig::Mode::kLastWins) {
        dispatch(0, {0});        // the operand copied
        dispatch(1);             // the winners cleared
        dispatch(2);             // each update claims its elements
        dispatch(3, {}, true);   // the winners store
      } else if (c->one_pass()) {
        dispatch(0, {0});        // the owner kernel's pass 0: a copy of the operand
        dispatch(1, {}, true);   // combines into what the first kernel wrote
      } else {
        for (int64_t pass = 0; pass < c->passes; ++pass) dispatch(0, {static_cast<uint32_t>(pass)}, pass > 0);
      }
    } else {
      for (size_t k = 0; k < g.kernels.size(); ++k) dispatch(static_cast<int>(k));
    }
  }

  // Control flow nests this deep at most (the planner recurses per level).
  static constexpr int kMaxControlDepth = 64;

  const Module& module_;
  Program p_;
  // The computation being planned and the values its caller reads.
  const Computation* comp_ = nullptr;
  std::vector<ValueRef> leaves_;
  std::vector<Shape> leaf_shapes_;
  int depth_ = 0;
  std::set<const Computation*> planned_;
  std::map<const Instruction*, std::vector<int>> control_buffers_;
  // Dynamic-update-slices of a loop body written into the state they update.
  std::map<ValueRef, int> in_place_;
};

}  // namespace

MaterializedLayoutFn GroupMaterialized(const Program& program, const FusionGroup& group) {
  return [&program, &group](const Instruction* n) -> std::optional<Layout> {
    const ValueRef v = ValueRef::Of(n);
    if (!group.relayout && group.OutputOf(v) >= 0) return std::nullopt;  // computed here
    auto it = program.value_buffer.find(v);
    if (it == program.value_buffer.end()) return std::nullopt;
    return program.buffers[it->second].shape.layout_or_default();
  };
}

namespace {

void Live(BufferDecl& d, int at) {
  d.first_step = d.first_step < 0 ? at : std::min(d.first_step, at);
  d.last_step = std::max(d.last_step, at);
}

// Marks every buffer step `s` touches as live at top-level step `at`.
void Touch(Program& p, const Step& s, int at) {
  for (const std::vector<int>* list : {&s.reads, &s.writes})
    for (int b : *list) Live(p.buffers[b], at);
  if (const auto* w = std::get_if<WhileStep>(&s.op)) {
    for (const StepList* body : {&w->condition, &w->body})
      for (const Step& inner : *body) Touch(p, inner, at);
    if (w->predicate >= 0) Live(p.buffers[w->predicate], at);
  }
  if (const auto* c = std::get_if<ConditionalStep>(&s.op)) {
    for (const StepList& b : c->branches)
      for (const Step& inner : b) Touch(p, inner, at);
    if (c->selector >= 0) Live(p.buffers[c->selector], at);
  }
}

// VkFFT binds an arena's buffer from its start and takes a slice's offset
// at launch (runtime/vkfft_command.h): each buffer an external step names
// must end within one binding's range.
Status CheckExternalReach(const Program& p, const StepList& steps) {
  for (const Step& s : steps) {
    if (std::holds_alternative<ExternalStep>(s.op)) {
      for (const std::vector<int>* list : {&s.reads, &s.writes})
        for (int b : *list) {
          const BufferDecl& d = p.buffers[b];
          if (d.offset + d.bytes > p.target.max_storage_buffer_range)
            return ResourceExhausted(std::get<ExternalStep>(s.op).name + " step: " + d.name + " " + d.shape.ToString() +
                                     " ends at byte " + std::to_string(d.offset + d.bytes) +
                                     " of its arena, beyond maxStorageBufferRange (" +
                                     std::to_string(p.target.max_storage_buffer_range) + ") of " + p.target.device_name +
                                     ", which the library binds from the arena's start");
        }
    } else if (const auto* w = std::get_if<WhileStep>(&s.op)) {
      VKXLA_RETURN_IF_ERROR(CheckExternalReach(p, w->condition));
      VKXLA_RETURN_IF_ERROR(CheckExternalReach(p, w->body));
    } else if (const auto* c = std::get_if<ConditionalStep>(&s.op)) {
      for (const StepList& b : c->branches) VKXLA_RETURN_IF_ERROR(CheckExternalReach(p, b));
    }
  }
  return OkStatus();
}

}  // namespace

Status FinishProgram(Program& p) {
  for (BufferDecl& d : p.buffers) d.first_step = d.last_step = -1;
  for (size_t i = 0; i < p.steps.size(); ++i) Touch(p, p.steps[i], static_cast<int>(i));
  const int end = static_cast<int>(p.steps.size());
  for (BufferDecl& d : p.buffers) {
    if (d.memory == MemoryKind::kHost) {
      d.first_step = 0;
      d.last_step = end;  // written or read by the host around every run
    } else if (d.first_step < 0) {
      d.first_step = d.last_step = 0;
    }
  }
  VKXLA_RETURN_IF_ERROR(AssignBuffers(p));
  VKXLA_RETURN_IF_ERROR(CheckExternalReach(p, p.steps));
  DeriveBarriers(p);
  DeriveSubmissions(p);
  return OkStatus();
}

StatusOr<Program> PlanModule(const Module& module, const TargetFeatures& target) {
  if (!module.entry()) return InvalidArgument("module " + module.name() + " has no entry computation");
  // Each rewrite copies the module it is given; only the last copy is kept.
  VKXLA_ASSIGN_OR_RETURN(std::shared_ptr<const Module> expanded, FlattenEntryParameters(module));
  VKXLA_ASSIGN_OR_RETURN(std::shared_ptr<const Module> ffts, ExpandRealFfts(expanded ? *expanded : module, !target.float64));
  if (ffts) expanded = ffts;
  VKXLA_ASSIGN_OR_RETURN(std::shared_ptr<const Module> dfts, ExpandDoubleFftsAsProducts(expanded ? *expanded : module, target));
  if (dfts) expanded = dfts;
  VKXLA_ASSIGN_OR_RETURN(std::shared_ptr<const Module> rngs, ExpandRngBitGenerators(expanded ? *expanded : module));
  if (rngs) expanded = rngs;
  VKXLA_ASSIGN_OR_RETURN(std::shared_ptr<const Module> linalg, ExpandLinearAlgebra(expanded ? *expanded : module));
  if (linalg) expanded = linalg;
  VKXLA_ASSIGN_OR_RETURN(std::shared_ptr<const Module> convs, ExpandConvolutions(expanded ? *expanded : module, target.cpu));
  if (convs) expanded = convs;
  VKXLA_ASSIGN_OR_RETURN(std::shared_ptr<const Module> norms, ExpandBatchNorms(expanded ? *expanded : module));
  if (norms) expanded = norms;
  VKXLA_ASSIGN_OR_RETURN(std::shared_ptr<const Module> topks, ExpandLongTopKs(expanded ? *expanded : module));
  if (topks) expanded = topks;
  VKXLA_ASSIGN_OR_RETURN(std::shared_ptr<const Module> dynamic, PadDynamicOperands(expanded ? *expanded : module));
  if (dynamic) expanded = dynamic;
  if (!expanded) return Planner(module, target).Run();
  VKXLA_ASSIGN_OR_RETURN(Program p, Planner(*expanded, target).Run());
  p.expanded_module = std::move(expanded);  // the groups point into it
  return p;
}

}  // namespace vkxla
