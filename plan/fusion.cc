#include "plan/fusion.h"

#include "ops/collectives.h"

#include <algorithm>

#include "ops/control_flow.h"
#include "ops/dot.h"
#include "ops/op_traits.h"
#include "ops/reduction_shapes.h"
#include "ops/window.h"
#include "plan/cost_model.h"
#include "plan/materialized.h"
#include "plan/matmul_config.h"
#include "plan/vector_source.h"
#include "plan/row_config.h"
#include "plan/scatter_config.h"
#include "plan/sort_config.h"

namespace vkxla {
namespace {

bool IsSort(const Instruction* i) { return i->opcode == Opcode::kSort || i->opcode == Opcode::kTopK; }

// get-tuple-element of a sort: its result read through the permutation,
// which fuses like a gather.
bool IsSortResult(const Instruction& i) {
  return i.opcode == Opcode::kGetTupleElement && IsSort(ValueRef::Of(&i).inst);
}

// Ops that only name values: they never cost a kernel.
bool IsFree(const Instruction& i) {
  switch (i.opcode) {
    case Opcode::kParameter: case Opcode::kConstant: case Opcode::kTuple: case Opcode::kAfterAll:
      return true;
    case Opcode::kGetTupleElement:
      return !IsSortResult(i);
    default:
      return ForwardsOperand(i);
  }
}

// Ops computed inline by the kernels that read them.
bool IsFusible(const Instruction& i) {
  if (IsElementwise(i.opcode) || IsGlslCustomCall(i)) return true;
  switch (i.opcode) {
    case Opcode::kBroadcast: case Opcode::kIota: case Opcode::kReshape: case Opcode::kTranspose: case Opcode::kReverse:
    case Opcode::kSlice: case Opcode::kConcatenate: case Opcode::kPad: case Opcode::kCopy: case Opcode::kBitcast:
    case Opcode::kDynamicSlice: case Opcode::kDynamicUpdateSlice: case Opcode::kGather: case Opcode::kMap:
    case Opcode::kGetDimensionSize: case Opcode::kSetDimensionSize: case Opcode::kDynamicReshape:
      return true;
    case Opcode::kGetTupleElement:
      return IsSortResult(i);
    case Opcode::kRngBitGenerator:
      return i.shape.IsArray();  // the bits alone (plan/rng_expansion.h)
    default:
      return false;
  }
}

// A row kernel's members (plan/row_config.h): its reduces in definition
// order, the values it writes, and where in the computation it runs (after
// its last member: everything a member reads is defined by then).
struct RowFusion {
  std::vector<const Instruction*> reduces, members;
  std::vector<ValueRef> outputs;
  int position = 0;
};
constexpr size_t kMaxRowMembers = 256;
// Values a row fusion's dependency check visits at most (between its first
// reduce and its last member) before it gives up on the group.
constexpr size_t kMaxRowDependencyWalk = 100000;

double Elements(const Shape& s) { return s.IsArray() ? std::max<double>(1.0, static_cast<double>(s.element_count())) : 1.0; }

int64_t WindowPositions(const Instruction& op) {
  StatusOr<Window> w = WindowOf(op, op.operands[0]->shape.rank());
  int64_t n = 1;
  if (w.ok())
    for (int64_t s : w->size) n *= s;
  return n;
}

// How often computing all of `user` once reads each element of operand
// `v` (see rule 4).
double ReadsPerElement(const Instruction& user, const Instruction& v, const TargetFeatures& target) {
  const double expansion = Elements(user.shape.IsArray() ? user.shape : v.shape) / Elements(v.shape);
  switch (user.opcode) {
    case Opcode::kReshape: case Opcode::kTranspose: case Opcode::kCopy: case Opcode::kReverse: case Opcode::kBitcast:
    case Opcode::kReduce: case Opcode::kScan: case Opcode::kMap:
      return 1;
    case Opcode::kReduceWindow:
      return static_cast<double>(WindowPositions(user));
    case Opcode::kSelectAndScatter:
      return 2.0 * static_cast<double>(WindowPositions(user));
    case Opcode::kScatter:
      // Owned result elements walk all updates and their indices; one pass
      // over the updates reads each once.
      if (user.operands[0] == &v || ChooseScatterMode(user, user.shape, target) != ScatterConfig::Mode::kOwner) return 1;
      return Elements(user.operands[0]->shape);
    case Opcode::kDot: case Opcode::kRaggedDot: case Opcode::kScaledDot: {
      // Each element is read once per tile along the other operand's free dims.
      StatusOr<DotPlan> p = PlanDot(user);
      if (!p.ok()) return 1;
      return std::max(1.0, static_cast<double>(user.operands[0] == &v ? p->n : p->m) / 64.0);
    }
    case Opcode::kSort: case Opcode::kTopK: {
      StatusOr<SortConfig> c = ChooseSortConfig(user, target);
      // A radix select reads the keys once a digit pass, once to gather and
      // k times for each of the k to rank them.
      if (c.ok() && c->algorithm == SortConfig::Algorithm::kRadixSelect)
        return 2.0 + static_cast<double>(c->passes.size() - 3) / 2 +
               static_cast<double>(c->select_k * c->select_k) / static_cast<double>(c->length);
      if (c.ok() && c->algorithm == SortConfig::Algorithm::kRadix) {
        // Each digit's count and place read the keys; other operands are
        // read once, by the results.
        double reads = 1.0;
        for (const RadixKey& k : c->radix_keys)
          if (user.operands[k.operand] == &v) reads += 2.0 * c->RadixDigitsOf(k);
        return reads;
      }
      // A block merge: the block sort, then per merge pass a read an
      // output and a binary search (at most 32 steps of two) a chunk.
      if (c.ok()) return 1.0 + c->merges * (1.0 + 64.0 / static_cast<double>(c->merge_chunk));
      return 1.0;
    }
    default:
      break;
  }
  if (IsElementwise(user.opcode)) return 1;
  return std::max(1.0, expansion);
}

class FusionPass {
 public:
  FusionPass(const Computation& entry, const std::vector<ValueRef>& results, const TargetFeatures& target)
      : entry_(entry), results_(results), target_(target) {}

  StatusOr<FusionChoice> Run() {
    Index();
    VKXLA_RETURN_IF_ERROR(CheckOps());
    VKXLA_RETURN_IF_ERROR(MandatoryBuffers());
    ChooseRowFusions();
    ChooseEpilogues();
    Costs();
    Evaluations();
    BoundMatmulProducers();
    BoundDepth();
    MultiOutputOperands();
    BuildGroups();
    return std::move(choice_);
  }

 private:
  void Materialize(const ValueRef& v, const std::string& why) { choice_.materialized.emplace(v, why); }
  bool IsMaterialized(const Instruction* i) const { return choice_.materialized.count(ValueRef::Of(i)) > 0; }

  void Index() {
    for (const auto& inst : entry_.instructions()) {
      position_[inst.get()] = static_cast<int>(order_.size());
      order_.push_back(inst.get());
    }
    // Each (value, user) pair once, in order; a set keeps this linear where
    // one value has tens of thousands of users.
    std::set<std::pair<const void*, const Instruction*>> seen;
    auto add = [&](std::vector<const Instruction*>& list, const Instruction* i) {
      if (seen.emplace(&list, i).second) list.push_back(i);
    };
    for (const Instruction* i : order_)
      for (const Instruction* o : i->operands) {
        add(users_[o], i);
        // Readers see through tuples: exp(gte(tuple(a, b), 0)) reads a.
        if (IsFree(*i)) continue;
        const bool names = (o->opcode == Opcode::kGetTupleElement && !IsSortResult(*o)) || ForwardsOperand(*o);
        const Instruction* read = names ? ValueRef::Of(o).inst : o;
        add(readers_[read], i);
      }
    for (const ValueRef& r : results_) result_values_.insert(r);
  }

  Status CheckOps() {
    for (const Instruction* i : order_)
      if (!IsFree(*i) && !IsFusible(*i) && !HeroKind(*i) && !RunsAsSteps(*i))
        return Unimplemented(std::string(OpcodeName(i->opcode)) + " " + i->Describe() + ": not implemented on Vulkan yet");
    return OkStatus();
  }

  // The results of a hero that something reads (or the entry returns).
  std::vector<ValueRef> HeroResults(const Instruction* h) const {
    if (!h->shape.IsTuple()) return {ValueRef{h, -1}};
    std::set<int64_t> used;
    for (const ValueRef& r : results_)
      if (r.inst == h) used.insert(r.index);
    auto it = users_.find(h);
    if (it != users_.end())
      for (const Instruction* u : it->second) {
        if (u->opcode == Opcode::kGetTupleElement) {
          used.insert(u->tuple_index);
        } else {
          for (size_t k = 0; k < h->shape.tuple_shapes().size(); ++k) used.insert(static_cast<int64_t>(k));
        }
      }
    std::vector<ValueRef> out;
    for (int64_t k : used) out.push_back(ValueRef{h, k});
    return out;
  }

  Status MandatoryBuffers() {
    for (const Instruction* i : order_) {
      if (RunsAsSteps(*i)) {
        // Its steps read every operand from memory and write every result.
        for (const Instruction* o : i->operands) {
          VKXLA_ASSIGN_OR_RETURN(std::vector<ValueRef> leaves, ValueLeaves(o));
          for (const ValueRef& v : leaves) Materialize(v, "operand of %" + i->name);
        }
        VKXLA_ASSIGN_OR_RETURN(std::vector<ValueRef> results, ValueLeaves(i));
        for (const ValueRef& v : results) Materialize(v, std::string(OpcodeName(i->opcode)) + " result");
      }
      if (i->opcode == Opcode::kParameter) Materialize(ValueRef{i, -1}, "parameter");
      if (i->opcode == Opcode::kConstant && i->shape.IsArray() && i->shape.element_count() > 1)
        Materialize(ValueRef{i, -1}, "constant");
      const std::optional<KernelKind> kind = HeroKind(*i);
      if (kind && *kind != KernelKind::kSort)
        for (const ValueRef& v : HeroResults(i)) Materialize(v, std::string(KernelKindName(*kind)) + " result");
    }
    for (const ValueRef& r : results_) Materialize(r, "entry result");
    return OkStatus();
  }

  // Rule 0 (plan/row_config.h): reduces over the rows of one shape, the
  // elementwise work between and after them and the broadcasts of their
  // results along the rows become one row kernel. Chosen first: its
  // members are computed in that kernel, not written (rules 3 to 6 skip them).
  void ChooseRowFusions() {
    // Inline loop trips of computing one element of each value, with what
    // it computes inline (shared values counted once per reader: an upper
    // bound), in one pass so that every group's count is a lookup.
    for (const Instruction* i : order_) {
      int64_t trips = ElementLoopTrips(*i);
      std::set<const Instruction*> distinct(i->operands.begin(), i->operands.end());
      for (const Instruction* o : distinct)
        if (IsInline(o)) trips = std::min<int64_t>(trips + inline_trips_[o], int64_t{1} << 40);
      inline_trips_[i] = trips;
    }
    for (const Instruction* h : order_) {
      if (h->opcode != Opcode::kReduce || row_of_.count(h)) continue;
      // With sibling reduces where they can join (one read by anything else
      // ends that attempt), else without.
      std::optional<RowFusion> f = GrowRowFusion(h, true);
      if (!f) f = GrowRowFusion(h, false);
      if (!f) continue;
      for (const Instruction* m : f->members) row_of_[m] = h;
      for (const Instruction* r : f->reduces) choice_.materialized.erase(ValueRef{r, -1});
      for (const ValueRef& o : f->outputs) Materialize(o, "written by the row kernel of %" + h->name);
      row_fusions_[h] = std::move(*f);
    }
  }

  // Whether a kernel reading v computes it inline (as far as is decided
  // before rule 0: parameters, constants, heroes' and steps' results and
  // the entry's results live in memory).
  bool IsInline(const Instruction* v) const { return IsFusible(*v) && !IsMaterialized(v) && !HeroKind(*v); }

  // Whether reduce r can be a stage of a row kernel over rows of `row`
  // (the operand's dims) along `reduced` (empty: r starts the group).
  bool IsRowStage(const Instruction* r, const std::vector<int64_t>& row, const std::vector<int64_t>& reduced) const {
    if (r->opcode != Opcode::kReduce || r->operands.size() != 2 || !r->shape.IsArray() || !r->shape.is_static()) return false;
    const Shape& x = r->operands[0]->shape;
    if (!x.is_static() || x.rank() == 0 || !r->operands[1]->shape.is_static()) return false;
    StatusOr<ReducePlan> plan = PlanReduce(*r);
    if (!plan.ok() || plan->reduced.empty() || r->called_computations.empty() ||
        !IsOneCommutativeOp(*r->called_computations[0].second))
      return false;
    if (!reduced.empty()) return plan->reduced == reduced && x.dims() == row;
    // Rows along the operand's unit-stride dim, short enough for one workgroup.
    const Layout layout = x.layout_or_default();
    const int64_t unit = layout.minor_to_major.empty() ? x.rank() - 1 : layout.minor_to_major[0];
    if (std::find(plan->reduced.begin(), plan->reduced.end(), unit) == plan->reduced.end()) return false;
    int64_t length = 1;
    for (int64_t d : plan->reduced) length *= x.dim(d);
    return length >= 1 && length <= kMaxRowLength;
  }

  // Reduces of the same rows as h, defined after it and in no row group,
  // that row result u reads directly or through elementwise ops of the
  // result shape outside `members` (mean2 = sum(x * x) / n in var = mean2 -
  // mean^2): they can join h's kernel as stages.
  std::vector<const Instruction*> SiblingReduces(const Instruction* u, const Instruction* h, const std::vector<int64_t>& row,
                                                 const std::vector<int64_t>& reduced,
                                                 const std::set<const Instruction*>& members) const {
    std::vector<const Instruction*> found;
    std::set<const Instruction*> seen;
    std::vector<const Instruction*> stack(u->operands.begin(), u->operands.end());
    while (!stack.empty() && seen.size() < kMaxRowDependencyWalk) {
      const Instruction* o = stack.back();
      stack.pop_back();
      if (members.count(o) || !seen.insert(o).second || position_.at(o) < position_.at(h)) continue;
      if (o->opcode == Opcode::kReduce) {
        if (!row_of_.count(o) && IsRowStage(o, row, reduced)) found.push_back(o);
      } else if (IsElementwise(o->opcode) && IsInline(o) && o->shape.IsArray() && o->shape.dims() == h->shape.dims()) {
        stack.insert(stack.end(), o->operands.begin(), o->operands.end());
      }
    }
    return found;
  }

  // Grows h's row fusion along its readers: row values (elementwise ops
  // of the row shape, broadcasts of row results along the rows) and row
  // results (reduces of row values over the same dims, elementwise ops of
  // their shape, and with `siblings` reduces of the same rows those ops
  // read). A row value read by anything else is an output; a row result
  // read by anything else ends the attempt, as does a member whose other
  // operands depend on a member (they would read another row, or a value
  // written after this kernel).
  std::optional<RowFusion> GrowRowFusion(const Instruction* h, bool siblings) const {
    if (!IsRowStage(h, {}, {})) return std::nullopt;
    const std::vector<int64_t> row = h->operands[0]->shape.dims();
    const ReducePlan plan = *PlanReduce(*h);
    RowFusion f;
    std::set<const Instruction*> members = {h}, results = {h};
    std::set<ValueRef> outputs;
    f.reduces.push_back(h);
    std::vector<const Instruction*> work = {h};
    while (!work.empty()) {
      const Instruction* v = work.back();
      work.pop_back();
      const bool result = results.count(v) > 0;
      if (result_values_.count(ValueRef{v, -1})) {
        if (result) return std::nullopt;
        outputs.insert(ValueRef{v, -1});
      }
      // Readers, and users that only name v (a tuple, a step's operand): exits.
      std::vector<const Instruction*> readers;
      if (auto it = readers_.find(v); it != readers_.end()) readers = it->second;
      if (auto it = users_.find(v); it != users_.end())
        for (const Instruction* u : it->second)
          if (IsFree(*u)) readers.push_back(u);
      for (const Instruction* u : readers) {
        if (members.count(u)) continue;
        bool joins = false, is_result = false;
        // A member of an earlier row kernel stays there: joining this one
        // too, it would read that kernel's reduces inline (an internal
        // error, found by a one-sided Jacobi SVD's column sums).
        if (!IsFree(*u) && u->shape.IsArray() && u->shape.is_static() && !row_of_.count(u)) {
          if (u->opcode == Opcode::kBroadcast) {
            joins = result && u->shape.dims() == row && u->dimensions && *u->dimensions == plan.kept;
          } else if (IsElementwise(u->opcode)) {
            joins = u->shape.dims() == row || (result && u->shape.dims() == h->shape.dims());
            is_result = u->shape.dims() != row;
          } else if (u->opcode == Opcode::kReduce) {
            joins = !result && u->operands[0] == v && IsRowStage(u, row, plan.reduced);
            is_result = true;
          }
        }
        if (!joins) {
          if (result) return std::nullopt;
          outputs.insert(ValueRef{v, -1});
          continue;
        }
        members.insert(u);
        if (is_result) results.insert(u);
        if (u->opcode == Opcode::kReduce) f.reduces.push_back(u);
        work.push_back(u);
        // A row result that meets another reduce of the same rows which
        // reads no member (flax's mean and mean of squares) takes it in as
        // a stage too; else that reduce would be computed inline for every
        // element. Only one defined after h: the dependency walk below
        // relies on every member coming after h.
        if (siblings && is_result && u->opcode != Opcode::kReduce)
          for (const Instruction* o : SiblingReduces(u, h, row, plan.reduced, members)) {
            members.insert(o);
            results.insert(o);
            f.reduces.push_back(o);
            work.push_back(o);
          }
        if (members.size() > kMaxRowMembers || static_cast<int64_t>(f.reduces.size()) > kMaxRowStages) return std::nullopt;
      }
    }
    if (outputs.empty()) return std::nullopt;
    // The inline loops the kernel repeats per element: the members' own and
    // what their other operands compute inline.
    int64_t element_trips = 0;
    std::set<const Instruction*> operands;
    for (const Instruction* m : members) {
      element_trips += ElementLoopTrips(*m);
      for (const Instruction* o : m->operands)
        if (!members.count(o)) operands.insert(o);
    }
    for (const Instruction* o : operands)
      if (IsInline(o)) element_trips = std::min<int64_t>(element_trips + inline_trips_.at(o), int64_t{1} << 40);
    // Other operands must not depend on a member. Only what is defined
    // after h can (every member reads h), and a walk too long to tell gives up.
    std::set<const Instruction*> seen;
    std::vector<const Instruction*> stack(operands.begin(), operands.end());
    while (!stack.empty()) {
      const Instruction* n = stack.back();
      stack.pop_back();
      if (members.count(n)) return std::nullopt;
      if (position_.at(n) < position_.at(h) || !seen.insert(n).second) continue;
      if (seen.size() > kMaxRowDependencyWalk) return std::nullopt;
      for (const Instruction* o : n->operands) stack.push_back(o);
    }
    int64_t length = 1;
    for (int64_t d : plan.reduced) length *= row[d];
    if (RowKernelTrips(length, static_cast<int64_t>(f.reduces.size()), element_trips, target_) > target_.max_loop_trips)
      return std::nullopt;
    std::sort(f.reduces.begin(), f.reduces.end(),
              [&](const Instruction* a, const Instruction* b) { return position_.at(a) < position_.at(b); });
    f.members.assign(members.begin(), members.end());
    f.outputs.assign(outputs.begin(), outputs.end());
    for (const Instruction* m : members) f.position = std::max(f.position, position_.at(m));
    // The kernel runs at its last member's place: whatever reads an output
    // must come after that, or it would read the output before it is
    // written (a Jacobi rotation's new columns of W read before the stages
    // that also rotate V's: a silent wrong answer).
    for (const ValueRef& o : f.outputs)
      for (const auto* uses : {&readers_, &users_})
        if (auto it = uses->find(o.inst); it != uses->end())
          for (const Instruction* u : it->second)
            if (!members.count(u) && position_.at(u) < f.position) return std::nullopt;
    return f;
  }

  // Whether an op only names `v` (a tuple: a loop's state, a call's
  // arguments; a step's operand): there it is read from memory, so v stays
  // a kernel's output. Readers (readers_) do not see these users: a reduce
  // read by negate and carried into a while lost its buffer to negate's
  // epilogue (an internal error, found by a random program).
  bool NamedElsewhere(const Instruction* v) const {
    auto it = users_.find(v);
    if (it == users_.end()) return false;
    for (const Instruction* u : it->second)
      if (IsFree(*u) || RunsAsSteps(*u)) return true;
    return false;
  }

  // Rule 3: a non-variadic reduce's or a dot's epilogue.
  void ChooseEpilogues() {
    for (const Instruction* h : order_) {
      if ((h->opcode != Opcode::kReduce && !IsDotFamily(h->opcode)) || h->shape.IsTuple() || row_of_.count(h)) continue;
      std::vector<const Instruction*> members;
      const Instruction* end = EpilogueEnd(h, members);
      if (end == h) continue;
      for (const Instruction* u : members) epilogue_of_[u] = h;
      choice_.materialized.erase(ValueRef{h, -1});
      Materialize(ValueRef{end, -1}, "epilogue of %" + h->name);
      epilogue_end_[h] = end;
    }
  }

  // Whether v may be computed inside an epilogue and not written: no
  // result of the computation, not named by a tuple or a step.
  bool Unwritten(const Instruction* v) const { return !result_values_.count(ValueRef{v, -1}) && !NamedElsewhere(v); }

  // The elementwise ops of h's shape that only h's result flows into, up to
  // the one value read beyond them (returned; `members` gets them with it,
  // in order): a chain (bias, relu), or a graph that splits and joins
  // again (gelu's x (1 + erf(x / sqrt(2))) / 2 reads x twice). h when there
  // is none. An op where two heroes' results meet belongs to the first.
  const Instruction* EpilogueEnd(const Instruction* h, std::vector<const Instruction*>& members) const {
    auto eligible = [&](const Instruction* u) {
      return IsElementwise(u->opcode) && u->shape.IsArray() && u->shape.dims() == h->shape.dims() && !epilogue_of_.count(u) &&
             !row_of_.count(u);
    };
    auto readers_of = [&](const Instruction* v) -> const std::vector<const Instruction*>& {
      static const std::vector<const Instruction*> none;
      auto it = readers_.find(v);
      return it == readers_.end() ? none : it->second;
    };
    // Candidates: what h's result reaches through eligible ops, not past a
    // value that must be written anyway.
    std::set<const Instruction*> candidates;
    std::vector<const Instruction*> order, stack = {h};
    while (!stack.empty() && static_cast<int>(candidates.size()) < kMaxFusionDepth) {
      const Instruction* v = stack.back();
      stack.pop_back();
      if (!Unwritten(v)) continue;
      for (const Instruction* u : readers_of(v))
        if (!candidates.count(u) && eligible(u)) {
          candidates.insert(u);
          order.push_back(u);
          stack.push_back(u);
        }
    }
    std::sort(order.begin(), order.end(), [&](const Instruction* a, const Instruction* b) { return position_.at(a) < position_.at(b); });
    // The latest candidate e whose ancestors among the candidates (and h)
    // are read by nothing else.
    for (auto e = order.rbegin(); e != order.rend(); ++e) {
      std::set<const Instruction*> inside = {*e};
      std::vector<const Instruction*> walk = {*e};
      while (!walk.empty()) {
        const Instruction* n = walk.back();
        walk.pop_back();
        for (const Instruction* o : n->operands)
          if ((o == h || candidates.count(o)) && inside.insert(o).second) walk.push_back(o);
      }
      if (!inside.count(h)) continue;
      bool closed = true;
      for (const Instruction* v : inside) {
        if (v == *e) continue;
        closed = closed && Unwritten(v);
        for (const Instruction* r : readers_of(v)) closed = closed && inside.count(r);
        if (!closed) break;
      }
      if (!closed) continue;
      for (const Instruction* u : order)
        if (inside.count(u)) members.push_back(u);
      return *e;
    }
    return h;
  }

  // Cost of one element with what would be fused under it (distinct
  // operands, each counted once; bounded, so long chains stay finite).
  void Costs() {
    for (const Instruction* i : order_) {
      double c = static_cast<double>(ElementCost(*i));
      std::set<const Instruction*> seen;
      for (const Instruction* o : i->operands) {
        if (!seen.insert(o).second) continue;
        c += IsMaterialized(o) ? 1.0 : cost_[o];
      }
      cost_[i] = std::min(c, 1e9);
    }
  }

  // Whether v only renames elements of values already in memory (slices,
  // reshapes, transposes, broadcasts of them): reading it is one load at a
  // computed address, as reading a copy of it would be, so writing it
  // first saves nothing and costs a dispatch (a depthwise kernel's nine
  // weight vectors).
  bool IsViewOfMemory(const Instruction* v) const {
    std::vector<const Instruction*> stack = {v};
    std::set<const Instruction*> seen;
    while (!stack.empty()) {
      const Instruction* n = stack.back();
      stack.pop_back();
      if (!seen.insert(n).second || IsMaterialized(n)) continue;
      switch (n->opcode) {
        case Opcode::kSlice: case Opcode::kReshape: case Opcode::kTranspose: case Opcode::kBroadcast:
        case Opcode::kBitcast: case Opcode::kCopy: case Opcode::kReverse:
          break;
        default:
          return false;
      }
      for (const Instruction* o : n->operands) stack.push_back(o);
    }
    return true;
  }

  // Rule 4, users before producers so each user's own evaluations are known.
  void Evaluations() {
    for (size_t k = order_.size(); k-- > 0;) {
      const Instruction* v = order_[k];
      if (!IsFusible(*v) || IsMaterialized(v) || epilogue_of_.count(v) || row_of_.count(v)) continue;
      double e = 0;
      auto it = readers_.find(v);
      if (it != readers_.end())
        for (const Instruction* u : it->second) {
          const double reads = ReadsPerElement(*u, *v, target_);
          const bool own_kernel =
              HeroKind(*u).has_value() || RunsAsSteps(*u) || IsMaterialized(u) || epilogue_of_.count(u) || row_of_.count(u);
          e += own_kernel ? reads : choice_.evaluations[u] * reads;
        }
      choice_.evaluations[v] = e;
      const double n = Elements(v->shape);
      if (n > 1 && (e - 1) * cost_[v] * n > kMemoryRoundTripCost * n + kDispatchCost && !IsViewOfMemory(v)) {
        char why[96];
        std::snprintf(why, sizeof why, "computed %.3g times per element at cost %.0f", e, cost_[v]);
        Materialize(ValueRef::Of(v), why);
        decided_.push_back(v);
      }
    }
  }

  // The elementwise arithmetic under v that a kernel reading v would
  // compute (each op once); index maps (gathers, pads, transposes) are
  // addressing, not counted.
  double FusedArithmetic(const Instruction* v) {
    double total = 0;
    std::set<const Instruction*> seen;
    std::vector<const Instruction*> stack = {v};
    while (!stack.empty()) {
      const Instruction* n = stack.back();
      stack.pop_back();
      if (!seen.insert(n).second || IsMaterialized(n) || !IsFusible(*n) || HeroKind(*n)) continue;
      if (IsElementwise(n->opcode)) total += static_cast<double>(ElementCost(*n));
      for (const Instruction* o : n->operands) stack.push_back(o);
    }
    return total;
  }

  // Rule 6b: a pad under operand `side` of a dot that keeps the operand
  // from being read as whole vectors along its contraction (its source's
  // rows are no whole vectors, or a vector would straddle its padding
  // edge) where the padded value, once written, would be (a convolution's
  // input padded to whole vectors of features, plan/conv_expansion.h). On
  // CPU drivers, whose register blocks read vectors; GPUs stage their tiles
  // an element at a time.
  const Instruction* PadBlockingVectors(const Instruction& dot, int side) {
    StatusOr<DotPlan> plan = PlanDot(dot);
    const Instruction* x = dot.operands[side];
    const ElementType t = x->shape.element_type();
    if (!plan.ok() || IsMaterialized(x) || IsComplex(t) || (BitWidth(t) != 8 && BitWidth(t) != 16 && BitWidth(t) != 32))
      return nullptr;
    const std::vector<int64_t>& contracting = side == 0 ? plan->dims.lhs_contracting : plan->dims.rhs_contracting;
    if (contracting.empty()) return nullptr;
    // Values in memory as the fusion stands, and `written` besides.
    auto in_memory = [this](const Instruction* written) -> MaterializedLayoutFn {
      return [this, written](const Instruction* n) -> std::optional<Layout> {
        if (n == written || IsMaterialized(n) || !IsFusible(*n)) return n->shape.layout_or_default();
        return std::nullopt;
      };
    };
    const int64_t lanes = VectorLanes(t);
    if (FindVectorSource(x, contracting.back(), lanes, in_memory(nullptr))) return nullptr;
    const Instruction* found = nullptr;
    VisitInline(x, in_memory(nullptr), [&](const Instruction* n) {
      if (n->opcode == Opcode::kPad && FindVectorSource(x, contracting.back(), lanes, in_memory(n))) found = n;
      return found == nullptr;
    });
    return found;
  }

  // Rule 6a: what a matmul kernel reads through fused producers (its
  // operands, and the side operands of its epilogue) is repeated in every
  // unrolled load of its tile. A costly op there (division, transcendental)
  // or an operand whose fused elementwise arithmetic passes
  // kMatmulOperandCost is written once instead: a small kernel, and a matmul shader the driver compiles in
  // seconds (lavapipe spent minutes per MobileNet layer with generated
  // weights and a depthwise sum fused into the loads).
  void BoundMatmulProducers() {
    std::map<const Instruction*, std::vector<const Instruction*>> epilogue_ops;  // hero -> its chain
    for (const auto& [u, hero] : epilogue_of_) epilogue_ops[hero].push_back(u);
    for (const Instruction* h : order_) {
      if (!IsDotFamily(h->opcode)) continue;
      std::vector<const Instruction*> stack;
      for (int side = 0; side < 2 && target_.cpu && h->opcode == Opcode::kDot; ++side)
        if (const Instruction* pad = PadBlockingVectors(*h, side)) {
          Materialize(ValueRef::Of(pad), "pad under operand " + std::to_string(side) + " of matmul %" + h->name +
                                             " that, written, is read as whole vectors");
          decided_.push_back(pad);
        }
      for (const Instruction* o : h->operands) {
        const double arithmetic = FusedArithmetic(o);
        if (!IsMaterialized(o) && IsFusible(*o) && arithmetic > kMatmulOperandCost) {
          Materialize(ValueRef::Of(o), "operand of matmul %" + h->name + " with fused arithmetic of cost " +
                                           std::to_string(static_cast<int64_t>(arithmetic)));
          decided_.push_back(o);
        } else {
          stack.push_back(o);
        }
      }
      for (const Instruction* u : epilogue_ops[h])
        for (const Instruction* o : u->operands)
          if (!epilogue_of_.count(o) && o != h) stack.push_back(o);
      std::set<const Instruction*> seen;
      while (!stack.empty()) {
        const Instruction* v = stack.back();
        stack.pop_back();
        if (!seen.insert(v).second || IsMaterialized(v) || !IsFusible(*v) || HeroKind(*v)) continue;
        if (ElementCost(*v) >= kCostlyElement || ElementLoopTrips(*v) > 0) {
          Materialize(ValueRef::Of(v), "costly op read by matmul %" + h->name);
          decided_.push_back(v);
          continue;
        }
        for (const Instruction* o : v->operands) stack.push_back(o);
      }
    }
  }

  // Rule 6, producers first: a value's depth is one more than its deepest
  // fused operand's (a hero's result, bound in its own kernel, and a value
  // in memory count 0).
  void BoundDepth() {
    std::map<const Instruction*, int> depth;
    for (const Instruction* i : order_) {
      int d = 1;
      for (const Instruction* o : i->operands) d = std::max(d, 1 + depth[o]);
      if (d >= kMaxFusionDepth && IsFusible(*i) && !IsMaterialized(i) && !epilogue_of_.count(i) && !row_of_.count(i)) {
        Materialize(ValueRef::Of(i), "a fused chain reaches depth " + std::to_string(kMaxFusionDepth));
        decided_.push_back(i);
      }
      depth[i] = IsMaterialized(i) || HeroKind(*i) || RunsAsSteps(*i) || IsFree(*i) ? 0 : d;
    }
  }

  // Rule 5.
  void MultiOutputOperands() {
    for (const Instruction* v : decided_) {
      if (result_values_.count(ValueRef::Of(v)) || !v->shape.IsArray() || v->opcode == Opcode::kGetTupleElement) continue;
      if (BitWidth(v->shape.element_type()) < 32) continue;  // elements must own whole words
      for (const Instruction* u : readers_[v]) {
        if (u->opcode != Opcode::kReduce || row_of_.count(u)) continue;
        const int64_t arity = static_cast<int64_t>(u->operands.size() / 2);
        bool operand = false;
        for (int64_t i = 0; i < arity; ++i) operand = operand || u->operands[i] == v;
        bool later = true;
        for (const Instruction* w : readers_[v]) later = later && (w == u || position_[w] > position_[u]);
        if (operand && later) {
          written_by_reduce_[v] = u;
          choice_.materialized[ValueRef::Of(v)] += "; written by %" + u->name;
          break;
        }
      }
    }
  }

  void BuildGroups() {
    struct Ordered {
      double position;
      GroupChoice group;
    };
    std::vector<Ordered> groups;
    for (const Instruction* h : order_) {
      if (RunsAsSteps(*h)) {
        GroupChoice g{KernelKind::kLoop, h, {}};
        g.control = true;
        groups.push_back({static_cast<double>(position_[h]), std::move(g)});
        continue;
      }
      const std::optional<KernelKind> kind = HeroKind(*h);
      if (!kind) continue;
      if (auto row = row_of_.find(h); row != row_of_.end()) {
        if (row->second != h) continue;  // a later stage of h's row kernel
        const RowFusion& f = row_fusions_.at(h);
        groups.push_back({static_cast<double>(f.position), GroupChoice{KernelKind::kRow, h, f.outputs, f.reduces}});
        continue;
      }
      GroupChoice g{*kind, h, {}};
      // An epilogue reads values defined between the hero and the chain's
      // end (a batch norm's rsqrt(var + eps), written by a kernel of its
      // own): the group runs where its chain ends.
      int at = position_[h];
      if (*kind != KernelKind::kSort) {
        auto end = epilogue_end_.find(h);
        if (end != epilogue_end_.end()) {
          g.outputs.push_back(ValueRef{end->second, -1});
          at = position_[end->second];
        } else {
          g.outputs = HeroResults(h);
        }
      }
      for (const auto& [v, reduce] : written_by_reduce_)
        if (reduce == h) g.outputs.push_back(ValueRef::Of(v));
      groups.push_back({static_cast<double>(at), std::move(g)});
    }
    // Every other value in memory that no hero writes gets a loop kernel,
    // placed after what it reads.
    std::set<ValueRef> written;
    for (const Ordered& o : groups)
      for (const ValueRef& v : o.group.outputs) written.insert(v);
    for (const auto& [v, why] : choice_.materialized) {
      if (written.count(v) || v.inst->opcode == Opcode::kParameter || v.inst->opcode == Opcode::kConstant) continue;
      if (HeroKind(*v.inst) && !IsSort(v.inst)) continue;  // written by its hero
      if (RunsAsSteps(*v.inst)) continue;                 // written by its steps
      const double at = position_[v.inst] + (v.index >= 0 ? 0.5 : 0.0);
      groups.push_back({at, GroupChoice{KernelKind::kLoop, v.inst, {v}}});
    }
    std::stable_sort(groups.begin(), groups.end(), [](const Ordered& a, const Ordered& b) { return a.position < b.position; });
    for (Ordered& o : groups) choice_.groups.push_back(std::move(o.group));
  }

  const Computation& entry_;
  const std::vector<ValueRef>& results_;
  const TargetFeatures& target_;
  std::vector<const Instruction*> order_;
  std::map<const Instruction*, int> position_;
  std::map<const Instruction*, std::vector<const Instruction*>> users_;    // every op naming it
  std::map<const Instruction*, std::vector<const Instruction*>> readers_;  // ops computing from it, through tuples
  std::set<ValueRef> result_values_;
  std::map<const Instruction*, const Instruction*> epilogue_of_;   // epilogue op -> its reduce
  std::map<const Instruction*, const Instruction*> epilogue_end_;  // reduce -> the value it writes
  std::map<const Instruction*, double> cost_;
  std::vector<const Instruction*> decided_;  // materialized by rule 4
  std::map<const Instruction*, const Instruction*> written_by_reduce_;
  std::map<const Instruction*, const Instruction*> row_of_;  // row-fusion member -> its first reduce
  std::map<const Instruction*, RowFusion> row_fusions_;      // first reduce -> its row fusion
  std::map<const Instruction*, int64_t> inline_trips_;       // rule 0's per-element loop trips
  FusionChoice choice_;
};

}  // namespace

bool RunsAsSteps(const Instruction& inst) {
  switch (inst.opcode) {
    case Opcode::kWhile: case Opcode::kConditional: case Opcode::kCall: case Opcode::kInfeed: case Opcode::kOutfeed:
    case Opcode::kSend: case Opcode::kRecv: case Opcode::kFft: case Opcode::kRngGetAndUpdateState:
      return true;
    default:
      return IsHostCustomCall(inst) || IsProcessOpcode(inst.opcode);
  }
}

std::optional<KernelKind> HeroKind(const Instruction& inst) {
  switch (inst.opcode) {
    case Opcode::kReduce: return KernelKind::kReduce;
    case Opcode::kSort: case Opcode::kTopK: return KernelKind::kSort;
    case Opcode::kScan: return KernelKind::kScan;
    case Opcode::kReduceWindow: case Opcode::kSelectAndScatter: return KernelKind::kWindow;
    case Opcode::kScatter: return KernelKind::kScatter;
    case Opcode::kDot: case Opcode::kRaggedDot: case Opcode::kScaledDot: return KernelKind::kMatmul;
    case Opcode::kCholesky: case Opcode::kTriangularSolve: return KernelKind::kTriangular;
    default: return std::nullopt;
  }
}

StatusOr<FusionChoice> ChooseFusion(const Computation& entry, const std::vector<ValueRef>& results,
                                    const TargetFeatures& target) {
  return FusionPass(entry, results, target).Run();
}

}  // namespace vkxla
