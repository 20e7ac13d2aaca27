#include "frontends/manual_regions.h"

#include <algorithm>
#include <numeric>
#include <set>

#include "frontends/frontend_attributes.h"
#include "frontends/gspmd_sharding.h"
#include "frontends/spmd_expansion.h"
#include "ops/attributes.h"
#include "ops/collectives.h"
#include "ops/control_flow.h"

namespace vkxla {
namespace {

enum class Boundary { kNone, kGspmdEntry, kGspmdExit, kSdyEntry, kSdyExit };

Boundary BoundaryOf(const Instruction& inst) {
  if (inst.opcode != Opcode::kCustomCall) return Boundary::kNone;
  const std::string t = CustomCallTarget(inst);
  if (t == "SPMDFullToShardShape") return Boundary::kGspmdEntry;
  if (t == "SPMDShardToFullShape") return Boundary::kGspmdExit;
  // local_xla.sdy.* is the same call before its export.
  if (t.ends_with("xla.sdy.GlobalToLocalShape")) return Boundary::kSdyEntry;
  if (t.ends_with("xla.sdy.LocalToGlobalShape")) return Boundary::kSdyExit;
  return Boundary::kNone;
}

bool IsEntry(const Instruction& i) {
  const Boundary b = BoundaryOf(i);
  return b == Boundary::kGspmdEntry || b == Boundary::kSdyEntry;
}
bool IsExit(const Instruction& i) {
  const Boundary b = BoundaryOf(i);
  return b == Boundary::kGspmdExit || b == Boundary::kSdyExit;
}
bool IsSdy(const Instruction& i) {
  const Boundary b = BoundaryOf(i);
  return b == Boundary::kSdyEntry || b == Boundary::kSdyExit;
}

// An array entering a region: an entry of one operand, or one element of
// an entry of several.
bool IsEntryValue(const Instruction& x) {
  if (IsEntry(x)) return x.shape.IsArray();
  return x.opcode == Opcode::kGetTupleElement && x.operands.size() == 1 && IsEntry(*x.operands[0]);
}

// A region's result as others read it: an exit, or an element of one.
bool IsExitValue(const Instruction& x) {
  if (IsExit(x)) return true;
  return x.opcode == Opcode::kGetTupleElement && x.operands.size() == 1 && IsExit(*x.operands[0]);
}

// The entry an entry value comes from, and which of its operands it is.
std::pair<Instruction*, size_t> EntryOf(Instruction* value) {
  if (IsEntry(*value)) return {value, 0};
  return {value->operands[0], static_cast<size_t>(value->tuple_index)};
}

// Ops that act beyond their results: live wherever they are.
bool HasEffect(Opcode op) {
  return op == Opcode::kOutfeed || op == Opcode::kInfeed || op == Opcode::kSend || op == Opcode::kSendDone || op == Opcode::kRecv ||
         op == Opcode::kRecvDone;
}

struct Region {
  std::vector<Instruction*> exits;         // in definition order
  std::set<const Instruction*> members;    // between the entries and exits, entry values included
  std::vector<Instruction*> entry_values;  // in definition order
  std::vector<Instruction*> outside;       // read whole by every device, in definition order
};

class RegionExpander {
 public:
  RegionExpander(Computation& c, const ManualRegionContext& context, const ComputationBuilders& b) : c_(c), context_(context), b_(b) {}

  StatusOr<std::vector<const Computation*>> Run() {
    std::vector<Instruction*> exits;
    for (size_t i = 0; i < c_.instructions().size(); ++i) {
      Instruction* inst = c_.instructions()[i].get();
      position_[inst] = i;
      bool depends = IsEntry(*inst);
      for (const Instruction* o : inst->operands) {
        users_[o].push_back(inst);
        depends = depends || depends_.count(o);
      }
      if (depends) depends_.insert(inst);
      if (IsExit(*inst)) exits.push_back(inst);
    }
    // What the results and the effects read; the rest is dead.
    std::vector<const Instruction*> stack;
    if (c_.root()) stack.push_back(c_.root());
    for (const auto& inst : c_.instructions())
      if (HasEffect(inst->opcode)) stack.push_back(inst.get());
    while (!stack.empty()) {
      const Instruction* x = stack.back();
      stack.pop_back();
      if (!live_.insert(x).second) continue;
      for (const Instruction* o : x->operands) stack.push_back(o);
    }
    std::vector<const Computation*> consumed;
    if (exits.empty()) return UnclosedEntries();
    VKXLA_ASSIGN_OR_RETURN(std::vector<Region> regions, Regions(exits));
    for (Region& r : regions) {
      if (Unsharded(r)) continue;
      VKXLA_RETURN_IF_ERROR(CheckClosed(r));
      VKXLA_ASSIGN_OR_RETURN(const Computation* body, Expand(r));
      for (const Computation* done : ConsumedComputations(body)) consumed.push_back(done);
    }
    VKXLA_RETURN_IF_ERROR(UnclosedEntries().status());
    c_.RestoreDefinitionOrder();
    return consumed;
  }

 private:
  // A region whose boundaries keep every shape and that meets no other
  // device is the same program on one device: its boundaries pass their
  // operands through (ops/control_flow.h's ForwardsOperand).
  bool Unsharded(const Region& r) const {
    for (const Instruction* x : r.members) {
      if (IsProcessOpcode(x->opcode)) return false;
      for (const auto& [name, callee] : x->called_computations)
        if (CallsProcessOps(callee)) return false;
    }
    for (const Instruction* v : r.entry_values) {
      auto [entry, k] = EntryOf(const_cast<Instruction*>(v));
      if (!entry->shape.IsArray() || entry->operands.size() != 1 || !entry->operands[0]->shape.Compatible(entry->shape)) return false;
    }
    for (const Instruction* exit : r.exits)
      if (!exit->shape.IsArray() || exit->operands.size() != 1 || !exit->operands[0]->shape.Compatible(exit->shape)) return false;
    return true;
  }

  // An entry that changes the shape, left once every region is written
  // out, has no exit.
  StatusOr<std::vector<const Computation*>> UnclosedEntries() {
    for (const auto& inst : c_.instructions())
      if (IsEntry(*inst) && !(inst->operands.size() == 1 && inst->operands[0]->shape.Compatible(inst->shape)))
        return Unimplemented(CustomCallTarget(*inst) + " " + inst->Describe() +
                             " opens a manual region that no exit closes (a shard_map without results)");
    return std::vector<const Computation*>{};
  }

  // Each exit's cone back to the entries: what it reads is the region's,
  // but for the program's parameters and other regions' results, read whole.
  // Exits whose cones meet past an entry are one region.
  StatusOr<std::vector<Region>> Regions(const std::vector<Instruction*>& exits) {
    std::vector<size_t> parent(exits.size());
    std::iota(parent.begin(), parent.end(), 0);
    auto find = [&](size_t x) {
      while (parent[x] != x) x = parent[x] = parent[parent[x]];
      return x;
    };
    std::map<const Instruction*, size_t> owner;  // a member an entry reaches -> the first exit reaching it
    std::vector<std::set<Instruction*>> cone(exits.size()), outside(exits.size());
    for (size_t e = 0; e < exits.size(); ++e) {
      std::vector<Instruction*> stack(exits[e]->operands.begin(), exits[e]->operands.end());
      while (!stack.empty()) {
        Instruction* x = stack.back();
        stack.pop_back();
        if (cone[e].count(x) || outside[e].count(x)) continue;
        if (x->opcode == Opcode::kParameter || IsExitValue(*x)) {
          outside[e].insert(x);
          continue;
        }
        if (IsEntry(*x) && !x->shape.IsArray())
          return InvalidArgument(CustomCallTarget(*x) + " " + x->Describe() + " is read whole inside its manual region: its elements are expected");
        cone[e].insert(x);
        if (depends_.count(x)) {
          auto [it, first] = owner.emplace(x, e);
          if (!first) parent[find(e)] = find(it->second);
        }
        if (IsEntryValue(*x)) continue;
        for (Instruction* o : x->operands) stack.push_back(o);
      }
    }
    std::map<size_t, size_t> index;  // a root exit -> its region
    std::vector<Region> regions;
    std::vector<std::set<Instruction*>> region_outside;
    for (size_t e = 0; e < exits.size(); ++e) {
      auto [it, fresh] = index.emplace(find(e), regions.size());
      if (fresh) {
        regions.emplace_back();
        region_outside.emplace_back();
      }
      Region& r = regions[it->second];
      r.exits.push_back(exits[e]);
      r.members.insert(cone[e].begin(), cone[e].end());
      region_outside[it->second].insert(outside[e].begin(), outside[e].end());
    }
    auto by_position = [&](const Instruction* a, const Instruction* b) { return position_.at(a) < position_.at(b); };
    for (size_t k = 0; k < regions.size(); ++k) {
      Region& r = regions[k];
      // What no entry reaches and something outside the region reads is
      // computed once, outside, and read whole (until nothing changes).
      const std::set<const Instruction*> exits_here(r.exits.begin(), r.exits.end());
      for (bool changed = true; changed;) {
        changed = false;
        for (auto it = r.members.begin(); it != r.members.end();) {
          const Instruction* x = *it;
          bool shared = depends_.count(x) == 0 && c_.root() == x;
          for (const Instruction* u : users_[x]) shared = shared || (!depends_.count(x) && !r.members.count(u) && !exits_here.count(u));
          if (!shared) {
            ++it;
            continue;
          }
          region_outside[k].insert(const_cast<Instruction*>(x));
          it = r.members.erase(it);
          changed = true;
        }
      }
      for (const Instruction* x : r.members)
        if (IsEntryValue(*x)) r.entry_values.push_back(const_cast<Instruction*>(x));
      for (Instruction* o : region_outside[k]) {  // only what the region reads
        bool read = false;
        for (const Instruction* u : users_[o]) read = read || r.members.count(u) || exits_here.count(u);
        if (read) r.outside.push_back(o);
      }
      std::sort(r.entry_values.begin(), r.entry_values.end(), by_position);
      std::sort(r.outside.begin(), r.outside.end(), by_position);
    }
    return regions;
  }

  // Nothing outside the region reads its values but its exits.
  Status CheckClosed(const Region& r) {
    std::set<const Instruction*> inside = r.members, exits(r.exits.begin(), r.exits.end());
    for (Instruction* v : r.entry_values) inside.insert(EntryOf(v).first);
    for (const Instruction* x : inside) {
      if (c_.root() == x) return InvalidArgument(x->Describe() + " of a manual region is the computation's result, not through an exit");
      auto found = users_.find(x);
      if (found == users_.end()) continue;
      for (const Instruction* u : found->second)
        if (!inside.count(u) && !exits.count(u) && live_.count(u))
          return InvalidArgument(x->Describe() + ", between a manual region's entries and exits, is read outside the region by " +
                                 u->Describe());
    }
    for (const Instruction* exit : r.exits) {
      if (exit->shape.IsArray()) continue;
      for (const Instruction* u : users_[exit])
        if (u->opcode != Opcode::kGetTupleElement)
          return InvalidArgument(CustomCallTarget(*exit) + " " + exit->Describe() + " is read whole by " + u->Describe() +
                                 ": its elements are expected");
    }
    return OkStatus();
  }

  static StatusOr<std::string> Attribute(const Instruction& inst, const std::string& key) {
    const std::string* dictionary = FindAttribute(inst, "frontend_attributes");
    std::optional<std::string> v = dictionary ? FrontendAttribute(*dictionary, key) : std::nullopt;
    if (!v) return InvalidArgument(CustomCallTarget(inst) + " " + inst.Describe() + " has no " + key + " in its frontend attributes");
    return *v;
  }

  // The sharding list `key` of a Shardy boundary, and its manual axes.
  static StatusOr<std::vector<TensorSharding>> SdyShardings(const Instruction& inst, const std::string& key,
                                                            std::vector<std::string>& manual_axes) {
    VKXLA_ASSIGN_OR_RETURN(std::string list, Attribute(inst, key));
    VKXLA_ASSIGN_OR_RETURN(std::string axes, Attribute(inst, "xla.sdy.manual_axes"));
    VKXLA_ASSIGN_OR_RETURN(std::vector<TensorSharding> shardings, ParseShardingList(list));
    VKXLA_ASSIGN_OR_RETURN(std::vector<std::string> manual, ParseManualAxes(axes));
    if (!manual_axes.empty() && manual != manual_axes)
      return InvalidArgument(CustomCallTarget(inst) + " " + inst.Describe() + " names other manual axes than its region's other boundaries");
    manual_axes = manual;
    if (shardings.size() != inst.operands.size())
      return InvalidArgument(CustomCallTarget(inst) + " " + inst.Describe() + " has " + std::to_string(inst.operands.size()) +
                             " operands but " + std::to_string(shardings.size()) + " shardings");
    return shardings;
  }

  // A Shardy region: one mesh, named by its shardings.
  Status SdyShardingsOf(const Region& r, ManualComputation& m) {
    std::map<const Instruction*, std::vector<TensorSharding>> in;
    for (Instruction* v : r.entry_values) {
      auto [entry, k] = EntryOf(v);
      if (!in.count(entry)) {
        VKXLA_ASSIGN_OR_RETURN(in[entry], SdyShardings(*entry, "xla.sdy.in_shardings", m.manual_axes));
      }
      if (k >= in[entry].size()) return InvalidArgument(entry->Describe() + " has no sharding for its value " + std::to_string(k));
      m.in_shardings.push_back(in[entry][k]);
    }
    for (const Instruction* exit : r.exits) {
      VKXLA_ASSIGN_OR_RETURN(std::vector<TensorSharding> out, SdyShardings(*exit, "xla.sdy.out_shardings", m.manual_axes));
      m.out_shardings.insert(m.out_shardings.end(), out.begin(), out.end());
    }
    std::string mesh_text, mesh_name;
    for (const std::vector<TensorSharding>* list : {&m.in_shardings, &m.out_shardings})
      for (const TensorSharding& t : *list) {
        auto named = context_.meshes.find(t.mesh);
        const std::string text = !t.inline_mesh.empty() ? t.inline_mesh.substr(4) : named != context_.meshes.end() ? named->second : "";
        if (text.empty()) return InvalidArgument("a manual region's sharding names " + t.mesh + ", which no sdy.mesh or xla.sdy.meshes defines");
        if (!mesh_text.empty() && text != mesh_text) return Unimplemented("a manual region whose shardings name different meshes");
        mesh_text = text;
        mesh_name = t.mesh;
      }
    if (mesh_text.empty()) return InvalidArgument("a manual region with no sharding to name its mesh");
    VKXLA_ASSIGN_OR_RETURN(m.mesh, ParseSdyMesh(mesh_text));
    for (const Instruction* o : r.outside) {
      TensorSharding whole;
      whole.mesh = mesh_name;
      whole.inline_mesh = mesh_name.empty() ? "mesh" + mesh_text : "";
      whole.dims.assign(static_cast<size_t>(o->shape.IsArray() ? o->shape.rank() : 0), {});
      m.in_shardings.push_back(whole);
    }
    return OkStatus();
  }

  // A GSPMD region: every sharding a tile assignment of its own over the
  // region's devices.
  Status GspmdShardingsOf(const Region& r, ManualComputation& m) {
    std::vector<std::pair<GspmdSharding, int64_t>> in, out;  // with the array's rank
    auto sharding_of = [](const Instruction& inst) -> StatusOr<GspmdSharding> {
      const std::string* text = FindAttribute(inst, "sharding");
      if (!text) return InvalidArgument(inst.Describe() + " has no sharding");
      return ParseGspmdSharding(*text);
    };
    for (const Instruction* v : r.entry_values) {
      // The operand's own sharding: a Sharding custom call's, or (HLO text)
      // that of a parameter or any op written with one.
      const Instruction* operand = v->operands.empty() ? nullptr : v->operands[0];
      if (!operand || !FindAttribute(*operand, "sharding"))
        return InvalidArgument("SPMDFullToShardShape " + v->Describe() +
                               ": the sharding of its operand is not known (a Sharding custom call with mhlo.sharding before it)");
      VKXLA_ASSIGN_OR_RETURN(GspmdSharding s, sharding_of(*operand));
      in.emplace_back(s, v->shape.rank());
    }
    for (const Instruction* exit : r.exits) {
      VKXLA_ASSIGN_OR_RETURN(GspmdSharding s, sharding_of(*exit));
      out.emplace_back(s, exit->shape.rank());
    }
    int64_t devices = 0;
    for (const auto* list : {&in, &out})
      for (const auto& [s, rank] : *list)
        if (s.kind == GspmdSharding::Kind::kTiled && devices == 0) devices = static_cast<int64_t>(s.devices.size());
    if (devices == 0) devices = context_.partitions;
    m.mesh.axes.emplace_back("devices", devices);
    m.manual_axes = {"devices"};
    for (const auto& [list, shardings, meshes] : {std::tuple{&in, &m.in_shardings, &m.in_meshes}, std::tuple{&out, &m.out_shardings, &m.out_meshes}})
      for (const auto& [s, rank] : *list) {
        VKXLA_ASSIGN_OR_RETURN(MeshSharding ms, AsMeshSharding(s, rank, devices));
        shardings->push_back(ms.sharding);
        meshes->push_back(ms.mesh);
      }
    GspmdSharding whole;
    for (const Instruction* o : r.outside) {
      VKXLA_ASSIGN_OR_RETURN(MeshSharding ms, AsMeshSharding(whole, o->shape.IsArray() ? o->shape.rank() : 0, devices));
      m.in_shardings.push_back(ms.sharding);
      m.in_meshes.push_back(ms.mesh);
    }
    return OkStatus();
  }

  // The values each exit gives: the exit, or its elements' readers.
  std::vector<std::vector<Instruction*>> ExitValues(const Instruction* exit) {
    if (exit->shape.IsArray()) return {{const_cast<Instruction*>(exit)}};
    std::vector<std::vector<Instruction*>> values(exit->shape.tuple_shapes().size());
    for (Instruction* u : users_[exit])
      if (u->tuple_index >= 0 && static_cast<size_t>(u->tuple_index) < values.size()) values[static_cast<size_t>(u->tuple_index)].push_back(u);
    return values;
  }

  static StatusOr<Instruction*> Remapped(const std::map<const Instruction*, Instruction*>& remap, const Instruction* x) {
    auto found = remap.find(x);
    if (found == remap.end()) return Internal("a manual region's body reads " + x->Describe() + ", which it does not hold");
    return found->second;
  }

  StatusOr<const Computation*> Expand(Region& r) {
    // Results of regions written out before, read whole here, are their new values.
    for (Instruction*& o : r.outside)
      for (auto found = replaced_.find(o); found != replaced_.end(); found = replaced_.find(o)) o = found->second;
    const bool sdy = IsSdy(*r.exits[0]);
    for (const Instruction* x : r.exits)
      if (IsSdy(*x) != sdy) return Unimplemented("a manual region opened and closed by both GSPMD and Shardy boundaries");
    for (const Instruction* v : r.entry_values)
      if (IsSdy(*EntryOf(const_cast<Instruction*>(v)).first) != sdy)
        return Unimplemented("a manual region opened and closed by both GSPMD and Shardy boundaries");
    ManualComputation m;
    const Instruction* first = r.exits[0];
    auto located = [&](Status s) -> Status {
      if (s.ok()) return s;
      const std::string where = first->location.line ? first->location.ToString() + ": " : "";
      return Status(s.code(), where + "the manual region closed by " + CustomCallTarget(*first) + " %" + first->name + ": " + s.message());
    };
    VKXLA_RETURN_IF_ERROR(located(sdy ? SdyShardingsOf(r, m) : GspmdShardingsOf(r, m)));

    // The body: parameters for the entering values, then the members.
    Computation* body = b_.new_computation();
    const HloMaker make = b_.make_in(body);
    std::map<const Instruction*, Instruction*> remap;
    std::vector<Instruction*> operands;
    int64_t number = 0;
    for (const std::vector<Instruction*>* inputs : {&r.entry_values, &r.outside})
      for (Instruction* v : *inputs) {
        Instruction* p = make(Opcode::kParameter, v->shape, {});
        p->parameter_number = number++;
        remap[v] = p;
        if (inputs == &r.outside) {
          operands.push_back(v);
        } else {
          auto [entry, k] = EntryOf(v);
          if (k >= entry->operands.size()) return InvalidArgument(entry->Describe() + " has no operand " + std::to_string(k));
          operands.push_back(entry->operands[k]);
        }
      }
    for (const auto& inst : c_.instructions()) {
      if (!r.members.count(inst.get()) || remap.count(inst.get())) continue;
      Instruction* copy = make(inst->opcode, inst->shape, {});
      const std::string name = copy->name;
      *copy = *inst;
      copy->name = name;
      for (Instruction*& o : copy->operands) {
        VKXLA_ASSIGN_OR_RETURN(o, Remapped(remap, o));
      }
      remap[inst.get()] = copy;
    }
    std::vector<Instruction*> returned;
    std::vector<std::vector<Instruction*>> exit_values;
    for (const Instruction* exit : r.exits) {
      std::vector<std::vector<Instruction*>> values = ExitValues(exit);
      if (values.size() != exit->operands.size())
        return located(InvalidArgument("it gives " + std::to_string(values.size()) + " values for " + std::to_string(exit->operands.size()) + " operands"));
      for (size_t k = 0; k < values.size(); ++k) {
        VKXLA_ASSIGN_OR_RETURN(Instruction * value, Remapped(remap, exit->operands[k]));
        returned.push_back(value);
        m.result_types.push_back(exit->shape.IsArray() ? exit->shape : exit->shape.tuple_shapes()[k]);
        exit_values.push_back(values[k]);
      }
    }
    if (returned.size() == 1) {
      body->set_root(returned[0]);
    } else {
      std::vector<Shape> shapes;
      for (const Instruction* x : returned) shapes.push_back(x->shape);
      body->set_root(make(Opcode::kTuple, Shape::Tuple(shapes), returned));
    }
    m.body = body;

    StatusOr<std::vector<Instruction*>> results = ExpandManualComputation(m, operands, b_);
    VKXLA_RETURN_IF_ERROR(located(results.status()));
    std::set<const Instruction*> taken = r.members;
    for (Instruction* v : r.entry_values) taken.insert(EntryOf(v).first);
    for (const Instruction* exit : r.exits) taken.insert(exit);
    for (size_t k = 0; k < exit_values.size(); ++k)
      for (Instruction* v : exit_values[k]) {
        c_.ReplaceUses(v, (*results)[k]);
        replaced_[v] = (*results)[k];
        taken.insert(v);
      }
    // Dead readers of what leaves (a loop's unused element) leave with it.
    for (const auto& inst : c_.instructions())
      if (!live_.count(inst.get()) && !taken.count(inst.get()))
        for (const Instruction* o : inst->operands)
          if (taken.count(o)) {
            taken.insert(inst.get());
            break;
          }
    c_.Extract(taken);
    return body;
  }

  Computation& c_;
  const ManualRegionContext& context_;
  const ComputationBuilders& b_;
  std::map<const Instruction*, size_t> position_;
  std::map<const Instruction*, std::vector<Instruction*>> users_;
  std::set<const Instruction*> depends_;  // what an entry reaches
  std::set<const Instruction*> live_;     // what the root and the effects read
  std::map<const Instruction*, Instruction*> replaced_;  // regions' exit values -> their results
};

}  // namespace

bool IsManualRegionBoundary(const Instruction& inst) { return BoundaryOf(inst) != Boundary::kNone; }

std::vector<const Computation*> DroppableComputations(const std::vector<const Computation*>& consumed,
                                                      const std::vector<const Computation*>& all) {
  const std::set<const Computation*> gone(consumed.begin(), consumed.end());
  std::set<const Computation*> called;
  for (const Computation* c : all)
    if (!gone.count(c))
      for (const auto& inst : c->instructions())
        for (const auto& [name, callee] : inst->called_computations) called.insert(callee);
  std::vector<const Computation*> droppable;
  for (const Computation* c : gone)
    if (!called.count(c)) droppable.push_back(c);
  return droppable;
}

StatusOr<std::vector<const Computation*>> ExpandManualRegions(Computation& c, const ManualRegionContext& context,
                                                               const ComputationBuilders& b) {
  return RegionExpander(c, context, b).Run();
}

}  // namespace vkxla
