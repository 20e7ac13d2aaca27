#include "frontends/spmd_expansion.h"

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <set>
#include <unordered_map>

#include "ops/attributes.h"
#include "ops/collectives.h"
#include "ops/slice_and_padding.h"
#include "ops/verifier.h"

namespace vkxla {
namespace {

// `c` and every computation it calls, each once (an iterative walk).
std::vector<const Computation*> Reachable(const Computation* c) {
  std::vector<const Computation*> stack = {c}, out;
  std::set<const Computation*> seen;
  while (!stack.empty()) {
    const Computation* top = stack.back();
    stack.pop_back();
    if (!seen.insert(top).second) continue;
    out.push_back(top);
    for (const auto& inst : top->instructions())
      for (const auto& [name, callee] : inst->called_computations) stack.push_back(callee);
  }
  return out;
}


// Ops whose copies may not be shared between devices even where their
// operands are: each device's own random numbers, feeds and calls.
bool PerDevice(Opcode op) {
  return op == Opcode::kRng || op == Opcode::kCustomCall || op == Opcode::kInfeed || op == Opcode::kOutfeed || op == Opcode::kSend ||
         op == Opcode::kRecv;
}

// The elementwise op a reduction computation is, where its root applies
// one to its two parameters.
std::optional<Opcode> PlainCombiner(const Computation* c) {
  const Instruction* r = c ? c->root() : nullptr;
  if (!r || r->operands.size() != 2) return std::nullopt;
  for (const Instruction* o : r->operands)
    if (o->opcode != Opcode::kParameter) return std::nullopt;
  switch (r->opcode) {
    case Opcode::kAdd: case Opcode::kMultiply: case Opcode::kMaximum: case Opcode::kMinimum: case Opcode::kAnd: case Opcode::kOr:
    case Opcode::kXor:
      return r->opcode;
    default:
      return std::nullopt;
  }
}

class Expander {
 public:
  Expander(const ManualComputation& m, const ComputationBuilders& b) : m_(m), b_(b), make_(b.make), constant_(b.constant) {}

  StatusOr<std::vector<Instruction*>> Run(const std::vector<Instruction*>& operands) {
    VKXLA_RETURN_IF_ERROR(Check(operands));
    PlaceCopies();
    const std::vector<TensorSharding> in_shardings = ManualOnly(m_.in_shardings, m_.in_meshes),
                                      out_shardings = ManualOnly(m_.out_shardings, m_.out_meshes);
    const Placement common = PlacementOn(m_.mesh);
    auto placement = [&](const std::vector<SdyMesh>& own, size_t i) { return own.empty() ? common : PlacementOn(own[i]); };
    const std::vector<Instruction*> params = m_.body->parameters();
    std::vector<std::vector<Instruction*>> shard_args(static_cast<size_t>(devices_));
    for (size_t i = 0; i < params.size(); ++i) {
      std::map<std::vector<int64_t>, Instruction*> shards;  // one slice per distinct shard
      const Placement in_place = placement(m_.in_meshes, i);
      for (int64_t d = 0; d < devices_; ++d) {
        VKXLA_ASSIGN_OR_RETURN(Instruction * s, Shard(operands[i], in_shardings[i], in_place, copy_device_[static_cast<size_t>(d)], shards));
        if (!s->shape.Compatible(params[i]->shape))
          return InvalidArgument("its body's argument " + std::to_string(i) + " is " + params[i]->shape.ToString() + " but a shard of " +
                                 operands[i]->shape.ToString() + " is " + s->shape.ToString());
        shard_args[static_cast<size_t>(d)].push_back(s);
      }
    }
    VKXLA_ASSIGN_OR_RETURN(std::vector<Instruction*> roots, WriteComputation(*m_.body, shard_args));
    std::vector<Instruction*> results;
    for (size_t j = 0; j < m_.result_types.size(); ++j) {
      std::vector<Instruction*> local(static_cast<size_t>(devices_));
      for (int64_t d = 0; d < devices_; ++d) {
        Instruction* root = roots[static_cast<size_t>(d)];
        local[static_cast<size_t>(d)] = root->shape.IsTuple() ? Element(root, static_cast<int64_t>(j)) : root;
      }
      VKXLA_ASSIGN_OR_RETURN(Instruction * global, Assemble(local, out_shardings[j], placement(m_.out_meshes, j), m_.result_types[j]));
      results.push_back(global);
    }
    return results;
  }

 private:
  Status Check(const std::vector<Instruction*>& operands) {
    const SdyMesh& mesh = m_.mesh;
    if (mesh.devices() > kMaxManualDevices)
      return Unimplemented("a manual computation over " + std::to_string(mesh.devices()) + " devices: at most " +
                           std::to_string(kMaxManualDevices) + " are written out on one device");
    const std::vector<Instruction*> params = m_.body->parameters();
    if (params.size() != operands.size() || m_.in_shardings.size() != operands.size() || m_.out_shardings.size() != m_.result_types.size())
      return InvalidArgument("a manual computation's operands, arguments, in_shardings and out_shardings do not match in number");
    // The body and what it calls are checked here: what the copies take from
    // them (a collective's shapes and dimensions) must hold.
    for (const Computation* c : Reachable(m_.body)) VKXLA_RETURN_IF_ERROR(VerifyComputation(*c));
    const Shape& returned = m_.body->root()->shape;
    const size_t count = returned.IsTuple() ? returned.tuple_shapes().size() : 1;
    if (count != m_.result_types.size() || (returned.IsTuple() && m_.result_types.size() == 1))
      return InvalidArgument("a manual computation's body returns " + std::to_string(count) + " values for " +
                             std::to_string(m_.result_types.size()) + " results");
    for (const auto& [list, own] : {std::pair{&m_.in_shardings, &m_.in_meshes}, std::pair{&m_.out_shardings, &m_.out_meshes}}) {
      if (!own->empty() && own->size() != list->size())
        return InvalidArgument("a manual computation's shardings and their meshes do not match in number");
      for (size_t i = 0; i < list->size(); ++i) {
        const TensorSharding& t = (*list)[i];
        const SdyMesh& on = own->empty() ? mesh : (*own)[i];
        if (on.devices() != mesh.devices())
          return InvalidArgument("a sharding over " + std::to_string(on.devices()) + " devices in a manual computation over " +
                                 std::to_string(mesh.devices()));
        if (t.unreduced) return Unimplemented("an unreduced sharding of a manual computation (partial values left to sum)");
        for (const auto& axes : t.dims)
          for (const std::string& a : axes)
            if (on.AxisIndex(a) < 0) return InvalidArgument("a sharding names axis \"" + a + "\", which the mesh does not have");
      }
    }
    return OkStatus();
  }

  bool Manual(const std::string& axis) const {
    return std::find(m_.manual_axes.begin(), m_.manual_axes.end(), axis) != m_.manual_axes.end();
  }

  // One copy of the body for each position on the manual axes; the axes
  // left automatic (partly manual, shard_map's auto axes) split nothing on
  // one device, so each copy is the device at their first position.
  void PlaceCopies() {
    const SdyMesh& mesh = m_.mesh;
    copy_device_.clear();
    copy_of_.assign(static_cast<size_t>(mesh.devices()), -1);
    for (int64_t linear = 0; linear < mesh.devices(); ++linear) {
      std::vector<int64_t> c(mesh.axes.size());
      int64_t rest = linear;
      bool first = true;
      for (size_t a = mesh.axes.size(); a-- > 0;) {
        c[a] = rest % mesh.axes[a].second;
        rest /= mesh.axes[a].second;
        first = first && (Manual(mesh.axes[a].first) || c[a] == 0);
      }
      if (first) copy_device_.push_back(mesh.DeviceAt(c));
    }
    // Copies in the order of their device ids (all of them: copy d is device d).
    std::sort(copy_device_.begin(), copy_device_.end());
    for (size_t k = 0; k < copy_device_.size(); ++k) copy_of_[static_cast<size_t>(copy_device_[k])] = static_cast<int64_t>(k);
    devices_ = static_cast<int64_t>(copy_device_.size());
  }

  // Shardings on the common mesh with the automatic axes taken out: they
  // split no copy's shard.
  std::vector<TensorSharding> ManualOnly(const std::vector<TensorSharding>& list, const std::vector<SdyMesh>& own) const {
    if (!own.empty()) return list;
    std::vector<TensorSharding> out = list;
    for (TensorSharding& t : out)
      for (std::vector<std::string>& axes : t.dims) std::erase_if(axes, [&](const std::string& a) { return !Manual(a); });
    return out;
  }

  // A collective's groups (and a permute's pairs, written into `in_copies`)
  // over the copies: of the devices' groups, those at the automatic axes'
  // first positions; one that crosses an automatic axis is an error.
  StatusOr<std::vector<std::vector<int64_t>>> CopyGroups(const Instruction& inst, Instruction& in_copies) const {
    const int64_t total = m_.mesh.devices();
    VKXLA_ASSIGN_OR_RETURN(std::vector<std::vector<int64_t>> groups, ProcessGroups(inst, ProcessGrid{1, total}));
    if (devices_ == total) return groups;
    auto translate = [&](std::vector<std::vector<int64_t>>& lists, const char* what) -> Status {
      std::vector<std::vector<int64_t>> kept;
      for (const std::vector<int64_t>& list : lists) {
        std::vector<int64_t> copies;
        for (int64_t id : list)
          if (id >= 0 && id < total && copy_of_[static_cast<size_t>(id)] >= 0) copies.push_back(copy_of_[static_cast<size_t>(id)]);
        if (copies.empty()) continue;  // the same exchange at another position of the automatic axes
        if (copies.size() != list.size())
          return Unimplemented(inst.Describe() + ": its " + what + " " + IdGroupsText({list}) +
                               " cross an automatic mesh axis; a partly manual computation's collectives run over manual axes");
        kept.push_back(copies);
      }
      lists = kept;
      return OkStatus();
    };
    if (inst.opcode == Opcode::kCollectivePermute) {
      if (const std::string* pairs = FindAttribute(inst, "source_target_pairs")) {
        VKXLA_ASSIGN_OR_RETURN(std::vector<std::vector<int64_t>> lists, ParseIdGroups(*pairs));
        VKXLA_RETURN_IF_ERROR(translate(lists, "source_target_pairs"));
        SetAttribute(in_copies, "source_target_pairs", IdGroupsText(lists));
      }
      std::vector<int64_t> line(static_cast<size_t>(devices_));
      std::iota(line.begin(), line.end(), 0);
      return std::vector<std::vector<int64_t>>{line};
    }
    VKXLA_RETURN_IF_ERROR(translate(groups, "replica_groups"));
    return groups;
  }

  // A mesh and each device's coordinates on it (by device id).
  struct Placement {
    const SdyMesh* mesh;
    std::vector<std::vector<int64_t>> coordinates;
  };
  static Placement PlacementOn(const SdyMesh& mesh) {
    Placement p{&mesh, std::vector<std::vector<int64_t>>(static_cast<size_t>(mesh.devices()))};
    for (int64_t linear = 0; linear < mesh.devices(); ++linear) {
      std::vector<int64_t> c(mesh.axes.size());
      int64_t rest = linear;
      for (size_t a = mesh.axes.size(); a-- > 0;) {
        c[a] = rest % mesh.axes[a].second;
        rest /= mesh.axes[a].second;
      }
      p.coordinates[static_cast<size_t>(mesh.DeviceAt(c))] = c;
    }
    return p;
  }

  // Device d's shard index along one dimension split by `axes`, and their count.
  static std::pair<int64_t, int64_t> ShardOf(const Placement& p, const std::vector<std::string>& axes, int64_t d) {
    int64_t index = 0, count = 1;
    for (const std::string& a : axes) {
      const int64_t i = p.mesh->AxisIndex(a), size = p.mesh->axes[static_cast<size_t>(i)].second;
      index = index * size + p.coordinates[static_cast<size_t>(d)][static_cast<size_t>(i)];
      count *= size;
    }
    return {index, count};
  }

  StatusOr<Instruction*> Shard(Instruction* x, const TensorSharding& t, const Placement& p, int64_t d,
                               std::map<std::vector<int64_t>, Instruction*>& cache) {
    const Shape& s = x->shape;
    if (!s.IsArray()) return Unimplemented("a manual computation's operand " + s.ToString() + ": arrays are supported");
    std::vector<int64_t> key;
    std::vector<SliceDimension> slice;
    std::vector<int64_t> dims = s.dims();
    bool whole = true;
    for (int64_t k = 0; k < s.rank(); ++k) {
      const auto [index, count] = ShardOf(p, static_cast<size_t>(k) < t.dims.size() ? t.dims[static_cast<size_t>(k)] : std::vector<std::string>{}, d);
      if (s.dim(k) % count != 0)
        return InvalidArgument("a manual computation's operand " + s.ToString() + ": dimension " + std::to_string(k) + " does not split into " +
                               std::to_string(count) + " shards");
      const int64_t size = s.dim(k) / count;
      slice.push_back({index * size, (index + 1) * size, 1});
      dims[static_cast<size_t>(k)] = size;
      key.push_back(index);
      whole = whole && count == 1;
    }
    if (whole) return x;
    auto found = cache.find(key);
    if (found != cache.end()) return found->second;
    Instruction* sliced = make_(Opcode::kSlice, Shape(s.element_type(), dims), {x});
    sliced->other_attributes.emplace_back("slice", SliceText(slice));
    cache[key] = sliced;
    return sliced;
  }

  Instruction* Clone(const Instruction& inst, std::vector<Instruction*> operands) {
    Instruction* c = make_(inst.opcode, inst.shape, {});
    const std::string name = c->name;
    *c = inst;
    c->name = name;
    c->operands = std::move(operands);
    return c;
  }

  Status Write(const Instruction& inst) {
    if (inst.opcode == Opcode::kPartitionId || inst.opcode == Opcode::kReplicaId) {
      for (int64_t d = 0; d < devices_; ++d) {
        Literal id(Shape::Scalar(inst.shape.element_type()));
        id.Set(0, Scalar::Int(inst.shape.element_type(), inst.opcode == Opcode::kPartitionId ? copy_device_[static_cast<size_t>(d)] : 0));
        values_[static_cast<size_t>(d)][&inst] = constant_(std::move(id));
      }
      return OkStatus();
    }
    if (IsCollectiveOpcode(inst.opcode)) return WriteCollective(inst);
    if (IsProcessOpcode(inst.opcode)) return Unimplemented(inst.Describe() + " in a manual computation over several devices");
    for (const auto& [name, callee] : inst.called_computations)
      if (CallsProcessOps(callee)) {
        if (inst.opcode == Opcode::kWhile) return WriteLockstepWhile(inst);
        if (inst.opcode == Opcode::kCall) return WriteCall(inst, *callee);
        return Unimplemented(inst.Describe() + " of a manual computation over several devices calls a computation that holds a "
                                               "collective or partition-id: only a while loop's copies run in lockstep, and a call in line");
      }
    std::vector<std::vector<Instruction*>> operands(static_cast<size_t>(devices_));
    bool same = !PerDevice(inst.opcode);
    for (int64_t d = 0; d < devices_; ++d) {
      for (const Instruction* o : inst.operands) operands[static_cast<size_t>(d)].push_back(values_[static_cast<size_t>(d)].at(o));
      same = same && operands[static_cast<size_t>(d)] == operands[0];
    }
    Instruction* shared = same ? Clone(inst, operands[0]) : nullptr;
    for (int64_t d = 0; d < devices_; ++d)
      values_[static_cast<size_t>(d)][&inst] = shared ? shared : Clone(inst, operands[static_cast<size_t>(d)]);
    return OkStatus();
  }

  // Every device's copy of `c` (its parameters given per device) where
  // make_ and constant_ write: each device's root.
  StatusOr<std::vector<Instruction*>> WriteComputation(const Computation& c, const std::vector<std::vector<Instruction*>>& args) {
    std::vector<std::unordered_map<const Instruction*, Instruction*>> saved = std::move(values_);
    values_.assign(static_cast<size_t>(devices_), {});
    const std::vector<Instruction*> params = c.parameters();
    for (int64_t d = 0; d < devices_; ++d)
      for (size_t i = 0; i < params.size(); ++i) values_[static_cast<size_t>(d)][params[i]] = args[static_cast<size_t>(d)].at(i);
    Status status = OkStatus();
    for (const auto& inst : c.instructions()) {
      if (inst->opcode == Opcode::kParameter) continue;
      status = Write(*inst);
      if (!status.ok()) break;
    }
    std::vector<Instruction*> roots;
    if (status.ok())
      for (int64_t d = 0; d < devices_; ++d) roots.push_back(values_[static_cast<size_t>(d)].at(c.root()));
    values_ = std::move(saved);
    VKXLA_RETURN_IF_ERROR(status);
    return roots;
  }

  // A call whose callee meets other devices, written in line (HLO text's
  // shard_map bodies are called computations).
  Status WriteCall(const Instruction& inst, const Computation& callee) {
    if (call_depth_ >= kMaxCallDepth)
      return Unimplemented(inst.Describe() + ": calls nest deeper than " + std::to_string(kMaxCallDepth) + " in a manual computation");
    std::vector<std::vector<Instruction*>> args(static_cast<size_t>(devices_));
    for (int64_t d = 0; d < devices_; ++d)
      for (const Instruction* o : inst.operands) args[static_cast<size_t>(d)].push_back(values_[static_cast<size_t>(d)].at(o));
    ++call_depth_;
    StatusOr<std::vector<Instruction*>> roots = WriteComputation(callee, args);
    --call_depth_;
    VKXLA_RETURN_IF_ERROR(roots.status());
    for (int64_t d = 0; d < devices_; ++d) values_[static_cast<size_t>(d)][&inst] = (*roots)[static_cast<size_t>(d)];
    return OkStatus();
  }

  Instruction* Element(Instruction* tuple, int64_t i) {
    if (tuple->opcode == Opcode::kTuple) return tuple->operands[static_cast<size_t>(i)];
    Instruction* e = make_(Opcode::kGetTupleElement, tuple->shape.tuple_shapes()[static_cast<size_t>(i)], {tuple});
    e->tuple_index = i;
    return e;
  }

  // A while loop whose condition or body meets other devices: one loop over
  // every device's state, running while any device's condition holds, a
  // device whose own condition fails keeping its state (so devices that
  // agree, as collectives need, run exactly their own trips).
  Status WriteLockstepWhile(const Instruction& inst) {
    const Computation *cond = nullptr, *body = nullptr;
    for (const auto& [name, c] : inst.called_computations) (name == "condition" ? cond : body) = c;
    const Shape& state = inst.shape;
    const std::vector<Shape> leaves = state.IsTuple() ? state.tuple_shapes() : std::vector<Shape>{state};
    for (const Shape& l : leaves)
      if (!l.IsArray()) return Unimplemented(inst.Describe() + ": a lockstep loop over a state of nested tuples");
    const int64_t k = static_cast<int64_t>(leaves.size());
    std::vector<Shape> all;
    for (int64_t d = 0; d < devices_; ++d) all.insert(all.end(), leaves.begin(), leaves.end());
    const Shape flat = Shape::Tuple(all);
    // Device d's state out of the flat tuple `p`, where make_ writes.
    auto state_of = [&](Instruction* p, int64_t d) {
      std::vector<Instruction*> parts;
      for (int64_t j = 0; j < k; ++j) parts.push_back(Element(p, d * k + j));
      return state.IsTuple() ? make_(Opcode::kTuple, state, parts) : parts[0];
    };
    auto leaf_of = [&](Instruction* s, int64_t j) { return state.IsTuple() ? Element(s, j) : s; };
    // Each device's condition, written into the loop's condition and body.
    auto conditions = [&](Instruction* p) -> StatusOr<std::vector<Instruction*>> {
      std::vector<std::vector<Instruction*>> args;
      for (int64_t d = 0; d < devices_; ++d) args.push_back({state_of(p, d)});
      return WriteComputation(*cond, args);
    };
    const HloMaker outer_make = make_;
    const ConstantMaker outer_constant = constant_;
    auto enter = [&](Computation* c) -> Instruction* {
      make_ = b_.make_in(c);
      constant_ = b_.constant_in(c);
      Instruction* p = make_(Opcode::kParameter, flat, {});
      p->parameter_number = 0;
      return p;
    };
    auto leave = [&] {
      make_ = outer_make;
      constant_ = outer_constant;
    };
    Computation* new_cond = b_.new_computation();
    {
      Instruction* p = enter(new_cond);
      StatusOr<std::vector<Instruction*>> holds = conditions(p);
      if (!holds.ok()) {
        leave();
        return holds.status();
      }
      Instruction* any = (*holds)[0];
      for (size_t d = 1; d < holds->size(); ++d) any = make_(Opcode::kOr, any->shape, {any, (*holds)[d]});
      new_cond->set_root(any);
      leave();
    }
    Computation* new_body = b_.new_computation();
    {
      Instruction* p = enter(new_body);
      StatusOr<std::vector<Instruction*>> holds = conditions(p);
      std::vector<std::vector<Instruction*>> args;
      for (int64_t d = 0; d < devices_; ++d) args.push_back({state_of(p, d)});
      StatusOr<std::vector<Instruction*>> next = holds.ok() ? WriteComputation(*body, args) : holds;
      if (!next.ok()) {
        leave();
        return next.status();
      }
      std::vector<Instruction*> parts;
      for (int64_t d = 0; d < devices_; ++d)
        for (int64_t j = 0; j < k; ++j) {
          const Shape& l = leaves[static_cast<size_t>(j)];
          Instruction* keep = (*holds)[static_cast<size_t>(d)];
          if (l.rank() > 0) {
            keep = make_(Opcode::kBroadcast, Shape(ElementType::kPred, l.dims()), {keep});
            keep->dimensions = std::vector<int64_t>{};
          }
          parts.push_back(make_(Opcode::kSelect, l, {keep, leaf_of((*next)[static_cast<size_t>(d)], j), Element(p, d * k + j)}));
        }
      new_body->set_root(make_(Opcode::kTuple, flat, parts));
      leave();
    }
    std::vector<Instruction*> init;
    for (int64_t d = 0; d < devices_; ++d)
      for (int64_t j = 0; j < k; ++j) init.push_back(leaf_of(values_[static_cast<size_t>(d)].at(inst.operands.at(0)), j));
    Instruction* loop = make_(Opcode::kWhile, flat, {make_(Opcode::kTuple, flat, init)});
    loop->called_computations = {{"condition", new_cond}, {"body", new_body}};
    for (int64_t d = 0; d < devices_; ++d) values_[static_cast<size_t>(d)][&inst] = state_of(loop, d);
    return OkStatus();
  }

  Instruction* Zeros(const Shape& s) { return ArrayOps(make_, constant_).Fill(s.element_type(), 0, s.dims()); }

  Instruction* Concatenate(const std::vector<Instruction*>& parts, int64_t dim) {
    if (parts.size() == 1) return parts[0];
    std::vector<int64_t> dims = parts[0]->shape.dims();
    dims[static_cast<size_t>(dim)] = 0;
    for (Instruction* p : parts) dims[static_cast<size_t>(dim)] += p->shape.dim(dim);
    Instruction* c = make_(Opcode::kConcatenate, Shape(parts[0]->shape.element_type(), dims), parts);
    c->dimensions = std::vector<int64_t>{dim};
    return c;
  }

  Instruction* Slice(Instruction* x, const std::vector<int64_t>& start, const std::vector<int64_t>& dims) {
    if (dims == x->shape.dims()) return x;
    std::vector<SliceDimension> slice;
    for (size_t k = 0; k < dims.size(); ++k) slice.push_back({start[k], start[k] + dims[k], 1});
    Instruction* s = make_(Opcode::kSlice, Shape(x->shape.element_type(), dims), {x});
    s->other_attributes.emplace_back("slice", SliceText(slice));
    return s;
  }

  // The group's values of one leaf folded in group order by the op's reduction.
  StatusOr<Instruction*> Fold(const Instruction& inst, const std::vector<Instruction*>& values) {
    const Computation* reduce = nullptr;
    for (const auto& [name, c] : inst.called_computations)
      if (name == "to_apply") reduce = c;
    if (!reduce) return InvalidArgument(inst.Describe() + " needs to_apply");
    const std::optional<Opcode> plain = PlainCombiner(reduce);
    Instruction* acc = values[0];
    for (size_t i = 1; i < values.size(); ++i) {
      if (plain) {
        acc = make_(*plain, acc->shape, {acc, values[i]});
      } else {
        Instruction* map = make_(Opcode::kMap, acc->shape, {acc, values[i]});
        std::vector<int64_t> all(static_cast<size_t>(acc->shape.rank()));
        for (size_t k = 0; k < all.size(); ++k) all[k] = static_cast<int64_t>(k);
        map->dimensions = all;
        map->called_computations.emplace_back("to_apply", const_cast<Computation*>(reduce));
        acc = map;
      }
    }
    return acc;
  }

  Status WriteCollective(const Instruction& inst) {
    Instruction in_copies = inst;  // its groups or pairs over the copies
    VKXLA_ASSIGN_OR_RETURN(std::vector<std::vector<int64_t>> groups, CopyGroups(inst, in_copies));
    std::vector<Shape> leaves;
    for (const Instruction* o : inst.operands) {
      if (!o->shape.IsArray()) return Unimplemented(inst.Describe() + " of " + o->shape.ToString() + " in a manual computation");
      leaves.push_back(o->shape);
    }
    const std::vector<Shape> result_leaves = inst.shape.IsTuple() ? inst.shape.tuple_shapes() : std::vector<Shape>{inst.shape};
    auto leaf_of = [&](int64_t device, size_t k) { return values_[static_cast<size_t>(device)].at(inst.operands[k]); };
    auto bind = [&](int64_t device, const std::vector<Instruction*>& parts) {
      values_[static_cast<size_t>(device)][&inst] = inst.shape.IsTuple() ? make_(Opcode::kTuple, inst.shape, parts) : parts.at(0);
    };
    std::vector<bool> bound(static_cast<size_t>(devices_), false);
    for (const std::vector<int64_t>& group : groups) {
      const int64_t size = static_cast<int64_t>(group.size());
      if (inst.opcode == Opcode::kAllReduce || inst.opcode == Opcode::kReduceScatter) {
        std::vector<Instruction*> folded;
        for (size_t k = 0; k < leaves.size(); ++k) {
          std::vector<Instruction*> members;
          for (int64_t d : group) members.push_back(leaf_of(d, k));
          VKXLA_ASSIGN_OR_RETURN(Instruction * f, Fold(inst, members));
          folded.push_back(f);
        }
        for (int64_t p = 0; p < size; ++p) {
          std::vector<Instruction*> parts = folded;
          if (inst.opcode == Opcode::kReduceScatter) {
            if (!inst.dimensions || inst.dimensions->size() != 1) return InvalidArgument(inst.Describe() + " needs dimensions={d}");
            const int64_t dim = (*inst.dimensions)[0];
            for (size_t k = 0; k < parts.size(); ++k) {
              const std::vector<int64_t>& dims = result_leaves.at(k).dims();
              std::vector<int64_t> start(dims.size(), 0);
              start[static_cast<size_t>(dim)] = p * dims[static_cast<size_t>(dim)];
              parts[k] = Slice(parts[k], start, dims);
            }
          }
          bind(group[static_cast<size_t>(p)], parts);
          bound[static_cast<size_t>(group[static_cast<size_t>(p)])] = true;
        }
        continue;
      }
      for (int64_t p = 0; p < size; ++p) {
        VKXLA_ASSIGN_OR_RETURN(std::vector<LeafMove> moves, ResultMoves(in_copies, size, p, leaves));
        std::vector<Instruction*> parts;
        for (size_t k = 0; k < moves.size() && k < result_leaves.size(); ++k) {
          const LeafMove& mv = moves[k];
          if (mv.kind == LeafMove::Kind::kZeros) {
            parts.push_back(Zeros(result_leaves[k]));
          } else if (mv.kind == LeafMove::Kind::kWhole) {
            parts.push_back(leaf_of(group[static_cast<size_t>(mv.member)], mv.leaf));
          } else {
            std::vector<int64_t> block = result_leaves[k].dims();
            block[static_cast<size_t>(mv.along)] /= size;
            std::vector<int64_t> start(block.size(), 0);
            start[static_cast<size_t>(mv.shift_dim)] = mv.shift;
            std::vector<Instruction*> blocks;
            for (int64_t i = 0; i < size; ++i) blocks.push_back(Slice(leaf_of(group[static_cast<size_t>(i)], mv.leaf), start, block));
            parts.push_back(Concatenate(blocks, mv.along));
          }
        }
        bind(group[static_cast<size_t>(p)], parts);
        bound[static_cast<size_t>(group[static_cast<size_t>(p)])] = true;
      }
    }
    for (int64_t d = 0; d < devices_; ++d)  // a collective-broadcast's devices in no group get zeros
      if (!bound[static_cast<size_t>(d)]) {
        std::vector<Instruction*> parts;
        for (const Shape& s : result_leaves) parts.push_back(Zeros(s));
        bind(d, parts);
      }
    return OkStatus();
  }

  // The devices' local results put together by `t`: along each dimension
  // the shards of the axes splitting it, in their order; an axis that
  // splits none holds the same values on each device (its first is read).
  StatusOr<Instruction*> Assemble(const std::vector<Instruction*>& local, const TensorSharding& t, const Placement& p, const Shape& global) {
    const SdyMesh& mesh = *p.mesh;
    const Shape& ls = local[0]->shape;
    if (!ls.IsArray() || ls.rank() != global.rank() || ls.element_type() != global.element_type())
      return InvalidArgument("a manual computation's body returns " + ls.ToString() + " for its result " + global.ToString());
    for (int64_t k = 0; k < ls.rank(); ++k) {
      const int64_t count = ShardOf(p, static_cast<size_t>(k) < t.dims.size() ? t.dims[static_cast<size_t>(k)] : std::vector<std::string>{}, 0).second;
      if (ls.dim(k) * count != global.dim(k))
        return InvalidArgument("a manual computation's body returns " + ls.ToString() + ", whose shards along dimension " +
                               std::to_string(k) + " do not make its result " + global.ToString());
    }
    std::vector<int64_t> coordinates(mesh.axes.size(), 0);
    // Recursive over the dimensions (as deep as the rank): dimension k's
    // parts, each built from dimension k + 1's with k's shard fixed.
    std::function<Instruction*(int64_t)> build = [&](int64_t k) -> Instruction* {
      if (k == ls.rank()) return local[static_cast<size_t>(copy_of_[static_cast<size_t>(mesh.DeviceAt(coordinates))])];
      const std::vector<std::string> axes = static_cast<size_t>(k) < t.dims.size() ? t.dims[static_cast<size_t>(k)] : std::vector<std::string>{};
      int64_t count = 1;
      for (const std::string& a : axes) count *= mesh.axes[static_cast<size_t>(mesh.AxisIndex(a))].second;
      std::vector<Instruction*> parts;
      for (int64_t index = 0; index < count; ++index) {
        int64_t rest = index;
        for (size_t a = axes.size(); a-- > 0;) {
          const size_t axis = static_cast<size_t>(mesh.AxisIndex(axes[a]));
          coordinates[axis] = rest % mesh.axes[axis].second;
          rest /= mesh.axes[axis].second;
        }
        parts.push_back(build(k + 1));
      }
      for (const std::string& a : axes) coordinates[static_cast<size_t>(mesh.AxisIndex(a))] = 0;
      return Concatenate(parts, k);
    };
    return build(0);
  }

  const ManualComputation& m_;
  const ComputationBuilders& b_;
  HloMaker make_;          // where the copies go: the computation being read, or a lockstep loop's
  ConstantMaker constant_;
  int64_t devices_ = 1;                 // copies of the body
  std::vector<int64_t> copy_device_;    // per copy, its device id
  std::vector<int64_t> copy_of_;        // per device id, its copy, or -1 (a position of the automatic axes but the first)
  static constexpr int kMaxCallDepth = 64;
  int call_depth_ = 0;
  std::vector<std::unordered_map<const Instruction*, Instruction*>> values_;  // per device: the body's instructions' copies
};

}  // namespace

bool CallsProcessOps(const Computation* c) {
  for (const Computation* r : Reachable(c))
    for (const auto& inst : r->instructions())
      if (IsProcessOpcode(inst->opcode)) return true;
  return false;
}

std::vector<const Computation*> ConsumedComputations(const Computation* body) {
  std::vector<const Computation*> out = {body};
  for (const Computation* c : Reachable(body))
    if (c != body && CallsProcessOps(c)) out.push_back(c);
  return out;
}

StatusOr<std::vector<Instruction*>> ExpandManualComputation(const ManualComputation& m, const std::vector<Instruction*>& operands,
                                                             const ComputationBuilders& b) {
  Expander e(m, b);
  return e.Run(operands);
}

}  // namespace vkxla
