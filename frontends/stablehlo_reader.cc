#include "frontends/stablehlo_reader.h"
#include "frontends/stablehlo_collectives.h"

#include "frontends/module_file.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "frontends/chlo_decompositions.h"
#include "frontends/chlo_mulhi.h"
#include "frontends/frontend_attributes.h"
#include "frontends/manual_regions.h"
#include "frontends/mlir_cursor.h"
#include "frontends/stablehlo_convolution.h"
#include "frontends/stablehlo_dot.h"
#include "frontends/stablehlo_legacy_ops.h"
#include "frontends/stablehlo_quantized.h"
#include "frontends/mlir_types.h"
#include "frontends/sdy_sharding.h"
#include "frontends/shape_refinement.h"
#include "frontends/spmd_expansion.h"
#include "frontends/xla_custom_calls.h"
#include "frontends/stablehlo_syntax.h"
#include "ir/numbers.h"
#include "ops/attributes.h"
#include "ops/cholesky.h"
#include "ops/window.h"
#include "ops/control_flow.h"
#include "ops/evaluator.h"
#include "ops/op_traits.h"
#include "ops/rng.h"
#include "ops/rng_bit_generator.h"
#include "ops/slice_and_padding.h"
#include "ops/triangular_solve.h"
#include "ops/verifier.h"

namespace vkxla {
namespace {

// More results than any op has (a variadic sort or reduce of 65536 arrays).
constexpr int64_t kMaxResults = int64_t{1} << 16;
// Regions inside regions (a reduce in a while's body in a case ...): each
// level is a few stack frames of the reader.
constexpr int kMaxRegionDepth = 64;

// `shape` with its open dimensions 0 (tuple nesting bounded by kMaxTupleDepth).
Shape WithOpenDimsEmpty(const Shape& shape) {
  if (shape.IsTuple()) {
    std::vector<Shape> elements;
    for (const Shape& e : shape.tuple_shapes()) elements.push_back(WithOpenDimsEmpty(e));
    return Shape::Tuple(std::move(elements));
  }
  if (!shape.IsArray()) return shape;
  std::vector<int64_t> dims = shape.dims();
  for (int64_t& d : dims) d = d == kUnknownDim ? 0 : d;
  return Shape(shape.element_type(), dims);
}

// custom_call: @target(...) in the pretty form, call_target_name in the generic one.
std::string CustomCallTargetOf(const Statement& s) {
  if (!s.callee.empty()) return s.callee.substr(1);
  auto it = s.attributes.find("call_target_name");
  std::string target = it == s.attributes.end() ? "" : it->second;
  if (target.size() >= 2 && target.front() == '"') target = target.substr(1, target.size() - 2);
  return target;
}

bool IsStaticFormOp(const std::string& name) {
  return name == "stablehlo.dynamic_conv" || name == "stablehlo.dynamic_pad" || name == "stablehlo.dynamic_gather" ||
         name == "stablehlo.dynamic_iota" || name == "stablehlo.dynamic_broadcast_in_dim" || name == "stablehlo.dynamic_reshape" ||
         name == "stablehlo.real_dynamic_slice";
}

class Reader {
 public:
  Reader(std::string_view text, bool with_checks, int first_line, std::string_view entry = {},
         std::optional<int64_t> process = std::nullopt, const std::vector<Shape>* argument_shapes = nullptr)
      : c_(text, first_line), with_checks_(with_checks), entry_name_(entry), first_line_(first_line), process_(process) {
    if (argument_shapes) argument_shapes_ = *argument_shapes;
  }
  // The entry's argument types as written (kUnknownDim where open).
  StatusOr<std::vector<Shape>> EntryArgumentTypes();
  StatusOr<StablehloProgram> Read();
  StatusOr<std::vector<StablehloFunctionInfo>> List();
  // Process process_'s module, once its program is read.
  StatusOr<StablehloProgram> ProcessModule();
  // A tuple of `leaves` in the entry; the entry and the regions read, as a module.
  Instruction* RootTuple(const std::vector<Instruction*>& leaves, size_t at);
  std::unique_ptr<Module> TakeModule(const std::string& name);

 private:
  Status ScanFunctions();
  StatusOr<Statement> ParseStatement();
  Status ParseSignature(Statement& s);
  Status ParseAttributeDict(Statement& s);
  // An attribute's text up to a top-level stop character, trimmed.
  std::string RawValue(std::string_view stops);
  // Translates `f`'s body with `args` bound; returns what func.return gives.
  StatusOr<std::vector<Instruction*>> Translate(const Function& f, const std::vector<Instruction*>& args, int depth);
  // Translates statements from `begin` to `end` (or to a return).
  StatusOr<std::vector<Instruction*>> TranslateBody(size_t begin, size_t end, std::map<std::string, Instruction*>& values,
                                                    int depth);
  // A region ("{ ^bb0(%a: tensor<f32>, ...): ... stablehlo.return ... }")
  // as a computation of the module, its block arguments the parameters.
  StatusOr<Computation*> TranslateRegion(const Statement& s, size_t region, int depth);
  StatusOr<Computation*> TranslateRegionAt(const Statement& s, size_t region, int depth);
  // Moves inside the region whose '{' is at `open`; returns where its '}' is.
  StatusOr<size_t> EnterRegion(size_t open);
  StatusOr<Instruction*> Lower(const Statement& s, std::map<std::string, Instruction*>& values);
  StatusOr<std::vector<Instruction*>> TranslateRunParallel(const Statement& s, std::map<std::string, Instruction*>& values,
                                                           int depth);
  const Function* FindFunction(const std::string& name) const;
  // run_parallel of several programs (one per process): for the main
  // program, their results become parameters of the entry; for process p
  // (process_), its program runs on its arguments and reading stops there.
  StatusOr<std::vector<Instruction*>> TranslateParallelPrograms(const Statement& s, const std::vector<std::string>& names,
                                                                std::map<std::string, Instruction*>& values, int depth);
  // all_reduce, all_gather, ..., replica_id: one HLO op and its results.
  StatusOr<std::vector<Instruction*>> LowerCollective(const Statement& s, Opcode opcode, std::map<std::string, Instruction*>& values);
  // infeed, outfeed and custom_call: one HLO op and its results' elements.
  StatusOr<std::vector<Instruction*>> LowerHostOp(const Statement& s, std::map<std::string, Instruction*>& values);
  // The pretty form of stablehlo.reduce: (%x init: %c), ... applies op |
  // across dimensions = [..] : types [reducer(%a: t, %b: t) ... { ... }].
  Status ParseReduceHeader(Statement& s);
  // chlo.scan(%x, ...) inits(%c, ...) dimension=N [attributes {...}] {...} : types.
  Status ParseScanHeader(Statement& s);
  // reduce, reduce_window, sort, map and select_and_scatter: their regions
  // become called computations; the results, one per value.
  StatusOr<std::vector<Instruction*>> LowerRegionOp(const Statement& s, std::map<std::string, Instruction*>& values);
  // The pretty reduce's "applies stablehlo.add": (acc, x) -> acc op x for
  // each element type.
  StatusOr<Computation*> AppliedComputation(const Statement& s, const std::string& op, const std::vector<Shape>& scalars);
  // Names the values an op gave after its results (as many as are named).
  Status BindResults(const Statement& s, const std::vector<Instruction*>& r, std::map<std::string, Instruction*>& values);
  // (a, b) -> a op b over `scalar`, a computation of the module.
  Computation* BinaryComputation(Opcode opcode, const Shape& scalar, size_t at);
  // bitcast_convert to or from i1, whose elements StableHLO counts as bits:
  // the i1 side has one more dimension, as long as the other type is wide.
  StatusOr<Instruction*> BitcastBits(const Instruction& inst, size_t at);
  // The pretty form of stablehlo.while: (%arg = %init, ...) : types cond {...} do {...}.
  Status ParseWhileHeader(Statement& s);
  // while, if and case: called computations made of the regions, with the
  // values the regions capture from outside passed in as parameters.
  StatusOr<std::vector<Instruction*>> TranslateControl(const Statement& s, std::map<std::string, Instruction*>& values,
                                                       int depth);
  struct ControlRegion {
    Computation* computation = nullptr;
    Instruction* parameter = nullptr;  // a tuple: the block arguments, then the captured values
    std::vector<Instruction*> returned;
  };
  StatusOr<ControlRegion> TranslateControlRegion(const Statement& s, size_t region, const std::vector<Shape>& arguments,
                                                 std::map<std::string, Instruction*>& outer,
                                                 std::vector<Instruction*>& captures, int depth);
  StatusOr<Instruction*> Value(const Statement& s, const std::string& name, std::map<std::string, Instruction*>& values);
  Status AddCheck(const Statement& s, std::map<std::string, Instruction*>& values);
  Instruction* Add(std::unique_ptr<Instruction> inst, size_t at);
  Instruction* Make(Opcode op, const Shape& shape, std::vector<Instruction*> operands, size_t at);
  // A constant of `value`, and `scalar` broadcast to `shape`.
  Instruction* Constant(Literal value, size_t at);
  // Make and Constant at `at`, for the decompositions written outside.
  std::pair<HloMaker, ConstantMaker> Makers(size_t at) {
    return {[this, at](Opcode op, const Shape& shape, std::vector<Instruction*> o) { return Make(op, shape, std::move(o), at); },
            [this, at](Literal value) { return Constant(std::move(value), at); }};
  }
  Instruction* Splat(Instruction* scalar, const Shape& shape, size_t at);
  // get-tuple-element i of `whole` for each of `shapes`.
  std::vector<Instruction*> Elements(Instruction* whole, const std::vector<Shape>& shapes, size_t at);
  // A tuple of `parts`, or the part itself when there is one.
  Instruction* TupleOf(const std::vector<Instruction*>& parts, size_t at);
  // StableHLO accepts some types XLA's op does not (complex convert to real,
  // max/min and cbrt of complex): those lower to ops XLA has. Null when
  // `inst` needs nothing special.
  StatusOr<Instruction*> LowerStablehloExtension(const Instruction& inst, size_t at);

  // sdy.manual_computation: its body runs on each device's shard of the
  // operands; on one device that is the whole array exactly when every
  // manual axis has size 1, and then the body runs in line.
  Status ParseManualComputationHeader(Statement& s);
  // "(%a, %b, ...)" onto `out`; `what` names one in the error.
  Status ValueList(std::vector<std::string>& out, const std::string& what);
  StatusOr<std::vector<Instruction*>> TranslateManualComputation(const Statement& s, std::map<std::string, Instruction*>& values,
                                                                 int depth);
  // Builders of instructions at `at` in the current or a new computation.
  ComputationBuilders BuildersAt(size_t at);
  // One over sharded manual axes: its body written out once per device.
  StatusOr<std::vector<Instruction*>> ExpandManual(const Statement& s, std::map<std::string, Instruction*>& values, int depth);

  // The dynamic_* ops whose size and padding operands are constants (or
  // only restate a static result type): rewritten in place as their static
  // ops (dynamic_conv as convolution, dynamic_pad as pad, ...).
  Status StaticForm(Statement& s, std::map<std::string, Instruction*>& values);
  // An op with quantized operands or results (frontends/stablehlo_quantized.h):
  // uniform_quantize, uniform_dequantize and bitcast_convert are lowered
  // here (true, results in `out`); any other op is rewritten in place
  // over dequantized operands with expressed-type results, which
  // FlushQuantized quantizes once the op has run (the spec's
  // dequantize_op_quantize).
  StatusOr<bool> LowerQuantized(Statement& s, std::map<std::string, Instruction*>& values, std::vector<Instruction*>& out);
  Status FlushQuantized(std::map<std::string, Instruction*>& values);
  struct PendingQuantize {
    std::string computed, name;  // the expressed-type result, the name it takes quantized
    QuantizedType type;
    size_t at = 0;
    const std::map<std::string, Instruction*>* scope = nullptr;  // the body whose values it belongs to
  };
  std::vector<PendingQuantize> pending_quantize_;
  int quantized_names_ = 0;
  // The integers of operand `i`, which must be a constant.
  StatusOr<std::vector<int64_t>> ConstantOperand(const Statement& s, size_t i, std::map<std::string, Instruction*>& values);

  // The entry function: the one asked for, else @main, else the first.
  StatusOr<const Function*> FindEntry() const;
  // The entry's parameter i: its written type, or where that leaves
  // dimensions open, the shape the caller gives (shape refinement).
  StatusOr<Shape> EntryParameterShape(const Function& entry, size_t i) const;
  // get_dimension_size of a static dimension, and a shape_assertion (which
  // must hold): constants, and nothing, as refinement makes them.
  StatusOr<Instruction*> DimensionSize(const Statement& s, Instruction* operand, int64_t dim);
  Status ShapeAssertion(const Statement& s, std::map<std::string, Instruction*>& values);
  // A func.func as a computation of the module (a custom call's
  // called_computations), its arguments the parameters.
  StatusOr<Computation*> FunctionComputation(const Statement& s, const std::string& name, int depth);
  // The custom calls for ops XLA expands (frontends/xla_custom_calls.h).
  StatusOr<std::vector<Instruction*>> LowerExpandedCall(const Statement& s, const std::string& target,
                                                        std::map<std::string, Instruction*>& values, int depth);

  MlirCursor c_;
  bool with_checks_;
  std::optional<std::vector<Shape>> argument_shapes_;  // the entry's arguments', to refine open dims with
  Status unrefined_;  // the first value whose open dims did not follow from its operands
  std::vector<Function> functions_;
  std::set<std::string> declarations_;  // "func.func private @f(...) -> ..." with no body
  std::map<std::string, std::string> mesh_text_;  // sdy.mesh @name (and xla.sdy.meshes) -> its <...>
  // The shardings a call of a manual region's body held (Shardy's round
  // trip through HLO), by the values it returned, for the exits that read them.
  std::map<const Instruction*, std::string> sdy_body_attributes_;
  void KeepManualBodyAttributes(const Statement& call, const std::vector<Instruction*>& arguments, const std::vector<Instruction*>& results);
  StatusOr<std::vector<const Computation*>> ExpandManualRegionsOf(Computation* c);
  std::unique_ptr<Computation> entry_;
  std::string entry_name_;  // the entry the caller asked for, or empty
  int first_line_ = 1;
  std::optional<int64_t> process_;          // reading process p's module of a run_parallel
  std::optional<ProcessGrid> parallel_;     // the run_parallel's grid, once read
  std::vector<Instruction*> process_results_;  // process_'s program's results
  bool stopped_ = false;                    // process_'s program was read: the entry ends there
  Computation* current_ = nullptr;  // where Add puts instructions
  std::vector<std::unique_ptr<Computation>> regions_;
  int next_id_ = 0;
  int region_depth_ = 0;  // regions being read, one inside the other
  int manual_depth_ = 0;  // bodies of manual computations written out per device being read
  std::vector<Instruction*> check_values_;
  std::vector<StablehloCheck> checks_;
  // Regions of while, if and case being translated, innermost last: a name
  // a region does not define is looked up outside and becomes a parameter.
  struct CaptureFrame {
    std::map<std::string, Instruction*>* inner = nullptr;
    std::map<std::string, Instruction*>* outer = nullptr;
    Computation* computation = nullptr;
    Instruction* parameter = nullptr;
    std::vector<Instruction*>* captures = nullptr;  // shared by a while's two regions
    int64_t first = 0;                               // tuple index of captures[0]
  };
  std::vector<CaptureFrame> frames_;
  std::vector<Literal> infeed_;
  std::set<std::string> probes_;  // probe_ids interpreter.probe recorded
};

Status Reader::ScanFunctions() {
  while (!c_.AtEnd()) {
    const size_t at = c_.position();
    if (c_.Consume("module")) {  // module @name attributes {...} { func.func ... }
      c_.SymbolName();
      if (c_.Consume("attributes")) {
        VKXLA_ASSIGN_OR_RETURN(const std::string attributes, c_.Balanced());
        // Shardy's round trip through HLO keeps the meshes here:
        // mhlo.frontend_attributes = {xla.sdy.meshes = "{mesh = #sdy.mesh<...>}"}.
        const size_t dictionary = attributes.find("mhlo.frontend_attributes");
        std::optional<std::string> meshes;
        if (dictionary != std::string::npos) meshes = FrontendAttribute(std::string_view(attributes).substr(dictionary), "xla.sdy.meshes");
        if (meshes) {
          StatusOr<std::vector<std::pair<std::string, std::string>>> parsed = ParseMeshDictionary(*meshes);
          if (!parsed.ok()) return c_.Error(at, "xla.sdy.meshes: " + parsed.status().message());
          for (auto& [name, text] : *parsed) mesh_text_[name] = text;
        }
      }
      VKXLA_RETURN_IF_ERROR(c_.Expect("{"));
      continue;
    }
    if (c_.Consume("}")) continue;
    if (c_.Peek() == '#' || c_.Peek() == '!') {
      // An alias: "#loc1 = loc(\"x.py\":3:4)", "#map = affine_map<...>",
      // "!t = tensor<...>", one a line. Locations mean nothing here and the
      // ops this reader knows name no aliases, so the definition is skipped.
      c_.Consume(std::string(1, c_.Peek()));
      const std::string alias = c_.Identifier();
      if (alias.empty()) return c_.Error("expected an alias name");
      VKXLA_RETURN_IF_ERROR(c_.Expect("="));
      c_.SkipUntil("\n");
      continue;
    }
    if (c_.Consume("sdy.mesh")) {
      // sdy.mesh @mesh = <["x"=2, "y"=4]>: the device mesh that shardings
      // name, kept as written for the manual computations that read it
      // (its axes' sizes; their order and device_ids where one is written
      // out per device).
      const std::string mesh = c_.SymbolName();
      if (mesh.empty()) return c_.Error("expected @name after sdy.mesh");
      VKXLA_RETURN_IF_ERROR(c_.Expect("="));
      if (c_.Peek() != '<') return c_.Error("expected the mesh <[...]> of sdy.mesh");
      VKXLA_ASSIGN_OR_RETURN(const std::string axes, c_.Balanced());
      mesh_text_[mesh] = axes;
      continue;
    }
    if (!c_.Consume("func.func")) {
      if (c_.rest().rfind("\"func.func\"", 0) == 0)
        return c_.Error("the generic form of func.func is not supported; write func.func @name(...)");
      return c_.Error(at, "expected func.func");
    }
    Function f;
    size_t unnamed_at = 0;  // where an argument without a %name is
    for (int words = 0; words < 2 && c_.Peek() != '@'; ++words)  // public / private / nested
      f.is_private = c_.Identifier() == "private" || f.is_private;
    f.name = c_.SymbolName();
    if (f.name.empty()) return c_.Error("expected @name after func.func");
    VKXLA_RETURN_IF_ERROR(c_.Expect("("));
    if (!c_.Consume(")")) {
      do {
        // A declaration may list bare types: "@f(tensor<2xf32>) -> ...".
        std::string arg;
        if (c_.Peek() == '%') {
          arg = c_.ValueName();
          if (arg.empty()) return c_.Error("expected an argument %name");
          VKXLA_RETURN_IF_ERROR(c_.Expect(":"));
        } else {
          unnamed_at = unnamed_at ? unnamed_at : c_.position();
        }
        VKXLA_ASSIGN_OR_RETURN(Shape s, ParseMlirType(c_, 0, nullptr, true));
        if (c_.Peek() == '{') VKXLA_RETURN_IF_ERROR(c_.Balanced().status());  // argument attributes
        f.arguments.emplace_back(arg, s);
      } while (c_.Consume(","));
      VKXLA_RETURN_IF_ERROR(c_.Expect(")"));
    }
    if (c_.Consume("->")) {
      // "(types with {result attributes})" or one type; then maybe
      // "attributes {...}" before the body.
      if (c_.Peek() == '(') VKXLA_RETURN_IF_ERROR(c_.Balanced().status());
      else c_.SkipUntil(" \t\r\n{");
    }
    if (c_.Consume("attributes")) {
      VKXLA_RETURN_IF_ERROR(c_.Balanced().status());
    }
    if (c_.Peek() != '{') {
      // A declaration: a symbol defined elsewhere, which MLIR allows only
      // private; nothing here can run it, so only a call to it is an error.
      if (!f.is_private) return c_.Error("expected the body of " + f.name + " (only a private func.func may be a declaration)");
      declarations_.insert(f.name);
      continue;
    }
    if (unnamed_at) return c_.Error(unnamed_at, "expected an argument %name (only a declaration lists bare types)");
    const size_t open = c_.position();
    VKXLA_RETURN_IF_ERROR(c_.Balanced().status());
    f.body_begin = open + 1;
    f.body_end = c_.position() - 1;
    const std::string_view body = c_.text().substr(f.body_begin, f.body_end - f.body_begin);
    f.holds_checks = body.find("check.") != std::string_view::npos;
    functions_.push_back(std::move(f));
  }
  if (functions_.empty())
    return c_.Error(declarations_.empty() ? "no func.func in the input" : "no func.func with a body in the input");
  return OkStatus();
}

std::string Reader::RawValue(std::string_view stops) {
  c_.SkipSpace();
  const size_t begin = c_.position();
  c_.SkipUntil(stops);
  std::string raw(c_.rest().data() - (c_.position() - begin), c_.position() - begin);
  while (!raw.empty() && std::isspace(static_cast<unsigned char>(raw.back()))) raw.pop_back();
  return raw;
}

Status Reader::ParseAttributeDict(Statement& s) {
  VKXLA_RETURN_IF_ERROR(c_.Expect("{"));
  while (!c_.Consume("}")) {
    std::string key = c_.Identifier();
    if (key.empty()) {
      VKXLA_ASSIGN_OR_RETURN(key, c_.String());
    }
    if (key.empty()) return c_.Error("expected an attribute name");
    if (!c_.Consume("=")) {
      s.attributes[key] = "unit";
    } else {
      s.attributes[key] = RawValue(",}");
    }
    c_.Consume(",");
  }
  return OkStatus();
}

Status Reader::ParseSignature(Statement& s) {
  VKXLA_RETURN_IF_ERROR(c_.Expect(":"));
  // Each type with its quantized element type, if it has one.
  auto type = [&](std::vector<Shape>& shapes, std::vector<std::optional<QuantizedType>>& quantized) -> Status {
    std::optional<QuantizedType> q;
    VKXLA_ASSIGN_OR_RETURN(Shape t, ParseMlirType(c_, 0, &q, true));
    shapes.push_back(std::move(t));
    quantized.push_back(std::move(q));
    return OkStatus();
  };
  if (c_.Peek() == '(') {
    c_.Consume("(");
    if (!c_.Consume(")")) {
      do {
        VKXLA_RETURN_IF_ERROR(type(s.operand_types, s.operand_quantized));
      } while (c_.Consume(","));
      VKXLA_RETURN_IF_ERROR(c_.Expect(")"));
    }
    VKXLA_RETURN_IF_ERROR(c_.Expect("->"));
    if (c_.Consume("(")) {
      if (!c_.Consume(")")) {
        do {
          VKXLA_RETURN_IF_ERROR(type(s.result_types, s.result_quantized));
        } while (c_.Consume(","));
        VKXLA_RETURN_IF_ERROR(c_.Expect(")"));
      }
    } else {
      VKXLA_RETURN_IF_ERROR(type(s.result_types, s.result_quantized));
    }
    return OkStatus();
  }
  // One type for every operand and the result; or, for the operands of
  // check ops and returns, a comma-separated list.
  do {
    VKXLA_RETURN_IF_ERROR(type(s.operand_types, s.operand_quantized));
  } while (c_.Consume(","));
  if (!s.results.empty()) {
    s.result_types = {s.operand_types.back()};
    s.result_quantized = {s.operand_quantized.back()};
  }
  if (c_.Consume("->")) {  // CHLO's "type -> type" and "type -> (types)"
    s.result_types.clear();
    s.result_quantized.clear();
    const bool list = c_.Consume("(");
    do {
      VKXLA_RETURN_IF_ERROR(type(s.result_types, s.result_quantized));
    } while (list && c_.Consume(","));
    if (list) VKXLA_RETURN_IF_ERROR(c_.Expect(")"));
  }
  return OkStatus();
}

StatusOr<Statement> Reader::ParseStatement() {
  Statement s;
  s.at = c_.position();
  if (c_.Peek() == '%') {
    do {
      std::string r = c_.ValueName();
      if (r.empty()) return c_.Error("expected a result %name");
      if (c_.Consume(":")) {  // %r:2 = ...
        const size_t count_at = c_.position();
        VKXLA_ASSIGN_OR_RETURN(int64_t n, c_.Integer());
        if (n < 1 || n > kMaxResults)
          return c_.Error(count_at, "an op has 1 to " + std::to_string(kMaxResults) + " results, not " + std::to_string(n));
        for (int64_t i = 0; i < n; ++i) s.results.push_back(r + "#" + std::to_string(i));
      } else {
        s.results.push_back(r);
      }
    } while (c_.Consume(","));
    VKXLA_RETURN_IF_ERROR(c_.Expect("="));
  }
  c_.SkipSpace();
  const size_t name_at = c_.position();
  bool generic = false;
  if (c_.Peek() == '"') {
    VKXLA_ASSIGN_OR_RETURN(s.name, c_.String());
    generic = true;
  } else {
    s.name = c_.Identifier();
  }
  if (s.name.empty()) return c_.Error(name_at, "expected an operation");
  if (s.name == "call") s.name = "func.call";
  if (s.name == "return" || s.name == "stablehlo.return" || s.name == "sdy.return") s.name = "func.return";
  if (generic) {
    VKXLA_RETURN_IF_ERROR(ValueList(s.operands, "an operand"));
    if (c_.Consume("<{")) {
      c_.set_position(c_.position() - 1);
      VKXLA_RETURN_IF_ERROR(ParseAttributeDict(s));
      VKXLA_RETURN_IF_ERROR(c_.Expect(">"));
    }
    if (c_.Consume("(")) {
      do {
        c_.SkipSpace();
        if (c_.Peek() != '{') return c_.Error("expected a region");
        s.regions.push_back(c_.position());
        VKXLA_RETURN_IF_ERROR(c_.Balanced().status());
      } while (c_.Consume(","));
      VKXLA_RETURN_IF_ERROR(c_.Expect(")"));
    }
    if (c_.Peek() == '{') VKXLA_RETURN_IF_ERROR(ParseAttributeDict(s));
    VKXLA_RETURN_IF_ERROR(ParseSignature(s));
    return s;
  }
  if (s.name == "func.return" && (c_.Peek() == '}' || c_.AtEnd())) return s;
  if (s.name == "stablehlo.while") {
    VKXLA_RETURN_IF_ERROR(ParseWhileHeader(s));
    return s;
  }
  if (s.name == "stablehlo.reduce") {
    VKXLA_RETURN_IF_ERROR(ParseReduceHeader(s));
    return s;
  }
  if (s.name == "chlo.scan") {
    VKXLA_RETURN_IF_ERROR(ParseScanHeader(s));
    return s;
  }
  if (s.name == "sdy.manual_computation") {
    VKXLA_RETURN_IF_ERROR(ParseManualComputationHeader(s));
    return s;
  }
  if (s.name == "stablehlo.composite") {
    VKXLA_ASSIGN_OR_RETURN(s.callee, c_.String());  // the composite's name; its decomposition is what runs
  }
  const bool known = s.name == "func.return" || s.name == "func.call" || s.name == "stablehlo.custom_call" ||
                     s.name == "interpreter.probe" || s.name == "interpreter.print" || s.name == "chlo.mulhi" ||
                     (s.name.rfind("chlo.", 0) == 0 && IsChloDecomposition(s.name.substr(5))) ||
                     (s.name.rfind("stablehlo.", 0) == 0 && IsLegacyStablehloOp(s.name.substr(10))) ||
                     s.name == "stablehlo.composite" || s.name == "stablehlo.optimization_barrier" ||
                     s.name == "stablehlo.after_all" || s.name == "sdy.sharding_constraint" || s.name == "sdy.reshard" ||
                     IsStaticFormOp(s.name) || s.name == "stablehlo.uniform_quantize" || s.name == "stablehlo.uniform_dequantize" ||
                     s.name.rfind("check.", 0) == 0 ||
                     (s.name.rfind("stablehlo.", 0) == 0 && DirectOpcode(s.name.substr(10))) ||
                     (s.name.rfind("stablehlo.", 0) == 0 && StablehloCollectiveOpcode(s.name.substr(10)));
  if (!known) return Unimplemented(c_.Where(name_at) + ": " + s.name + " is not implemented yet");
  if (s.callee.empty()) s.callee = c_.SymbolName();
  c_.Consume("(");
  // Operands, keywords, key = value attributes and [..] groups up to the
  // signature's ':'.
  for (;;) {
    const char p = c_.Peek();
    if (p == ':' || p == '\0' || p == '}') break;
    if (p == ',' || p == ')') {
      c_.Consume(std::string(1, p));
      continue;
    }
    if (p == '%') {
      s.operands.push_back(c_.ValueName());
      continue;
    }
    if (p == '[') {
      VKXLA_ASSIGN_OR_RETURN(std::string b, c_.Balanced());
      s.brackets.push_back(b);
      continue;
    }
    if (p == '{') {
      VKXLA_RETURN_IF_ERROR(ParseAttributeDict(s));
      continue;
    }
    if (c_.rest().rfind("dense<", 0) == 0) {
      VKXLA_ASSIGN_OR_RETURN(DenseText d, ParseDenseText(c_));
      s.dense = d;
      continue;
    }
    const size_t word_at = c_.position();
    std::string word = c_.Identifier();
    if (word.empty()) {
      c_.SkipUntil(",:");
      if (c_.position() == word_at) return c_.Error("unexpected text in " + s.name);
      continue;
    }
    if (c_.Consume("=")) {
      c_.SkipSpace();
      if (c_.Peek() == '{') {  // a struct value (the pretty convolution's window = {...})
        VKXLA_ASSIGN_OR_RETURN(s.attributes[word], c_.Balanced());
      } else {
        s.attributes[word] = RawValue(",:}");
      }
    } else {
      s.keywords.push_back(word);
    }
  }
  if (c_.Peek() == ':') VKXLA_RETURN_IF_ERROR(ParseSignature(s));
  if (c_.Peek() == '{') VKXLA_RETURN_IF_ERROR(ParseAttributeDict(s));  // e.g. {tolerance = 0.1 : f64}
  return s;
}

Status Reader::ParseReduceHeader(Statement& s) {
  std::vector<std::string> inputs, inits;
  do {
    VKXLA_RETURN_IF_ERROR(c_.Expect("("));
    std::string input = c_.ValueName();
    if (input.empty()) return c_.Error("expected an operand of stablehlo.reduce");
    VKXLA_RETURN_IF_ERROR(c_.Expect("init"));
    VKXLA_RETURN_IF_ERROR(c_.Expect(":"));
    std::string init = c_.ValueName();
    if (init.empty()) return c_.Error("expected the initial value of " + input);
    VKXLA_RETURN_IF_ERROR(c_.Expect(")"));
    inputs.push_back(input);
    inits.push_back(init);
  } while (c_.Consume(","));
  s.operands = inputs;
  s.operands.insert(s.operands.end(), inits.begin(), inits.end());
  if (c_.Consume("applies")) {
    const std::string op = c_.Identifier();
    if (op.empty()) return c_.Error("expected the op stablehlo.reduce applies");
    s.attributes["applies"] = op;
  }
  VKXLA_RETURN_IF_ERROR(c_.Expect("across"));
  VKXLA_RETURN_IF_ERROR(c_.Expect("dimensions"));
  VKXLA_RETURN_IF_ERROR(c_.Expect("="));
  c_.SkipSpace();
  if (c_.Peek() != '[') return c_.Error("expected dimensions = [..] in stablehlo.reduce");
  const size_t open = c_.position();
  VKXLA_RETURN_IF_ERROR(c_.Balanced().status());
  s.attributes["dimensions"] = std::string(c_.text().substr(open, c_.position() - open));
  VKXLA_RETURN_IF_ERROR(ParseSignature(s));
  if (s.attributes.count("applies")) return OkStatus();
  VKXLA_RETURN_IF_ERROR(c_.Expect("reducer"));
  std::vector<std::pair<std::string, Shape>> lhs, rhs;
  while (c_.Consume("(")) {
    for (auto* side : {&lhs, &rhs}) {
      std::string name = c_.ValueName();
      if (name.empty()) return c_.Error("expected a reducer argument %name");
      VKXLA_RETURN_IF_ERROR(c_.Expect(":"));
      VKXLA_ASSIGN_OR_RETURN(Shape t, ParseMlirType(c_, 0, nullptr, true));
      side->emplace_back(name, t);
      if (side == &lhs) VKXLA_RETURN_IF_ERROR(c_.Expect(","));
    }
    VKXLA_RETURN_IF_ERROR(c_.Expect(")"));
  }
  // Printed in pairs (accumulator i, value i); the block takes the
  // accumulators first.
  s.region_parameters = lhs;
  s.region_parameters.insert(s.region_parameters.end(), rhs.begin(), rhs.end());
  c_.SkipSpace();
  if (c_.Peek() != '{') return c_.Error("expected the reducer's body");
  s.regions.push_back(c_.position());
  return c_.Balanced().status();
}

Status Reader::ParseScanHeader(Statement& s) {
  std::vector<std::string> inits;
  for (auto* list : {&s.operands, &inits}) {
    if (list == &inits) VKXLA_RETURN_IF_ERROR(c_.Expect("inits"));
    VKXLA_RETURN_IF_ERROR(ValueList(*list, "a value in chlo.scan"));
  }
  s.operands.insert(s.operands.end(), inits.begin(), inits.end());
  VKXLA_RETURN_IF_ERROR(c_.Expect("dimension"));
  VKXLA_RETURN_IF_ERROR(c_.Expect("="));
  VKXLA_ASSIGN_OR_RETURN(int64_t dimension, c_.Integer());
  s.attributes["dimension"] = std::to_string(dimension);
  if (c_.Consume("attributes")) VKXLA_RETURN_IF_ERROR(ParseAttributeDict(s));
  c_.SkipSpace();
  if (c_.Peek() != '{') return c_.Error("expected the body of chlo.scan");
  s.regions.push_back(c_.position());
  VKXLA_RETURN_IF_ERROR(c_.Balanced().status());
  return ParseSignature(s);
}

Status Reader::ParseWhileHeader(Statement& s) {
  VKXLA_RETURN_IF_ERROR(c_.Expect("("));
  if (!c_.Consume(")")) {
    do {
      std::string arg = c_.ValueName();
      if (arg.empty()) return c_.Error("expected a block argument %name in stablehlo.while");
      VKXLA_RETURN_IF_ERROR(c_.Expect("="));
      std::string init = c_.ValueName();
      if (init.empty()) return c_.Error("expected the initial value of " + arg);
      s.region_arguments.push_back(arg);
      s.operands.push_back(init);
    } while (c_.Consume(","));
    VKXLA_RETURN_IF_ERROR(c_.Expect(")"));
  }
  if (!s.operands.empty()) {
    VKXLA_RETURN_IF_ERROR(c_.Expect(":"));
    do {
      VKXLA_ASSIGN_OR_RETURN(Shape t, ParseMlirType(c_, 0, nullptr, true));
      s.operand_types.push_back(t);
    } while (c_.Consume(","));
  }
  s.result_types = s.operand_types;
  if (c_.Consume("attributes")) VKXLA_RETURN_IF_ERROR(c_.Balanced().status());
  for (const char* word : {"cond", "do"}) {
    VKXLA_RETURN_IF_ERROR(c_.Expect(word));
    c_.SkipSpace();
    if (c_.Peek() != '{') return c_.Error(std::string("expected the ") + word + " region of stablehlo.while");
    s.regions.push_back(c_.position());
    VKXLA_RETURN_IF_ERROR(c_.Balanced().status());
  }
  return OkStatus();
}

Instruction* Reader::Add(std::unique_ptr<Instruction> inst, size_t at) {
  inst->name = "v" + std::to_string(next_id_++);
  const auto [line, column] = c_.LineColumn(at);
  inst->location.line = line;
  inst->location.column = column;
  if (HasUnknownDims(inst->shape)) {
    // Open dims follow from the operands (shape refinement); where they do
    // not, the statement fails (TranslateBody returns unrefined_) and the
    // value is left empty meanwhile, so nothing is sized from an open dim.
    StatusOr<Shape> refined = RefinedShape(*inst);
    if (refined.ok()) {
      inst->shape = std::move(*refined);
    } else {
      if (unrefined_.ok()) unrefined_ = c_.Error(at, std::string(OpcodeName(inst->opcode)) + ": " + refined.status().message());
      inst->shape = WithOpenDimsEmpty(inst->shape);
    }
  }
  return current_->AddInstruction(std::move(inst));
}

Instruction* Reader::Make(Opcode op, const Shape& shape, std::vector<Instruction*> operands, size_t at) {
  auto inst = std::make_unique<Instruction>();
  inst->opcode = op;
  inst->shape = shape;
  inst->operands = std::move(operands);
  return Add(std::move(inst), at);
}

Status Reader::BindResults(const Statement& s, const std::vector<Instruction*>& r,
                           std::map<std::string, Instruction*>& values) {
  if (r.size() != s.results.size())
    return c_.Error(s.at, s.name + " gives " + std::to_string(r.size()) + " results, " + std::to_string(s.results.size()) +
                              " are named");
  for (size_t i = 0; i < r.size(); ++i) values[s.results[i]] = r[i];
  return OkStatus();
}

Instruction* Reader::Constant(Literal value, size_t at) {
  auto c = std::make_unique<Instruction>();
  c->opcode = Opcode::kConstant;
  c->shape = value.shape();
  c->literal = std::move(value);
  return Add(std::move(c), at);
}

Instruction* Reader::Splat(Instruction* scalar, const Shape& shape, size_t at) {
  Instruction* b = Make(Opcode::kBroadcast, shape, {scalar}, at);
  b->dimensions = std::vector<int64_t>{};
  return b;
}

std::vector<Instruction*> Reader::Elements(Instruction* whole, const std::vector<Shape>& shapes, size_t at) {
  std::vector<Instruction*> out;
  // The whole's own elements where it has them: refined where `shapes`
  // (as written) leave dimensions open.
  const bool own = whole->shape.IsTuple() && whole->shape.tuple_shapes().size() == shapes.size();
  for (size_t i = 0; i < shapes.size(); ++i) {
    Instruction* e = Make(Opcode::kGetTupleElement, own ? whole->shape.tuple_shapes()[i] : shapes[i], {whole}, at);
    e->tuple_index = static_cast<int64_t>(i);
    out.push_back(e);
  }
  return out;
}

Instruction* Reader::TupleOf(const std::vector<Instruction*>& parts, size_t at) {
  if (parts.size() == 1) return parts[0];
  std::vector<Shape> shapes;
  for (Instruction* p : parts) shapes.push_back(p->shape);
  return Make(Opcode::kTuple, Shape::Tuple(shapes), parts, at);
}

StatusOr<Instruction*> Reader::BitcastBits(const Instruction& inst, size_t at) {
  Instruction* x = inst.operands[0];
  const bool packs = x->shape.element_type() == ElementType::kPred;  // i1[..., W] -> W-bit type
  const Shape& bits = packs ? x->shape : inst.shape;
  const Shape& word = packs ? inst.shape : x->shape;
  const int width = BitWidth(word.element_type());
  std::vector<int64_t> expected = word.dims();
  expected.push_back(width);
  if (word.element_type() == ElementType::kPred || bits.dims() != expected || IsComplex(word.element_type()))
    return c_.Error(at, "bitcast_convert between " + x->shape.ToString() + " and " + inst.shape.ToString() +
                            ": the i1 side must have one more dimension, of the other type's bit width");
  const ElementType u = width == 8 ? ElementType::kU8 : width == 16 ? ElementType::kU16 : width == 32 ? ElementType::kU32 : ElementType::kU64;
  const Shape wide(u, bits.dims());
  const int64_t last = bits.rank() - 1;
  Instruction* shift = Make(Opcode::kIota, wide, {}, at);
  shift->iota_dimension = last;
  auto scalar = [&](uint64_t v) { return Constant(Literal::ScalarOf(Scalar::UInt(u, v)), at); };
  auto splat = [&](uint64_t v) { return Splat(scalar(v), wide, at); };
  if (packs) {
    // Bit k of the word is element k of the last dimension.
    Instruction* shifted = Make(Opcode::kShiftLeft, wide, {Make(Opcode::kConvert, wide, {x}, at), shift}, at);
    Instruction* sum = Make(Opcode::kReduce, Shape(u, word.dims()), {shifted, scalar(0)}, at);
    sum->dimensions = std::vector<int64_t>{last};
    sum->called_computations.emplace_back("to_apply", BinaryComputation(Opcode::kOr, Shape(u, {}), at));
    return u == word.element_type() ? sum : Make(Opcode::kBitcastConvert, word, {sum}, at);
  }
  Instruction* w = u == word.element_type() ? x : Make(Opcode::kBitcastConvert, Shape(u, word.dims()), {x}, at);
  std::vector<int64_t> keep(word.rank());
  for (int64_t d = 0; d < word.rank(); ++d) keep[d] = d;
  Instruction* spread = Make(Opcode::kBroadcast, wide, {w}, at);
  spread->dimensions = keep;
  Instruction* bit = Make(Opcode::kAnd, wide, {Make(Opcode::kShiftRightLogical, wide, {spread, shift}, at), splat(1)}, at);
  Instruction* set = Make(Opcode::kCompare, bits, {bit, splat(0)}, at);
  set->direction = ComparisonDirection::kNe;
  return set;
}

StatusOr<Instruction*> Reader::LowerStablehloExtension(const Instruction& inst, size_t at) {
  if (inst.operands.empty() || !inst.operands[0]->shape.IsArray() || !inst.shape.IsArray()) return nullptr;
  Instruction* x = inst.operands[0];
  const ElementType from = x->shape.element_type(), to = inst.shape.element_type();
  const std::vector<int64_t>& dims = inst.shape.dims();
  if (inst.opcode == Opcode::kBitcastConvert && (from == ElementType::kPred || to == ElementType::kPred))
    return BitcastBits(inst, at);
  if (!IsComplex(from)) return nullptr;
  const ElementType part = ComplexComponentType(from);
  if (inst.opcode == Opcode::kConvert && !IsComplex(to)) {  // StableHLO converts the real part
    Instruction* re = Make(Opcode::kReal, Shape(part, dims), {x}, at);
    return Make(Opcode::kConvert, inst.shape, {re}, at);
  }
  if ((inst.opcode == Opcode::kMaximum || inst.opcode == Opcode::kMinimum) && inst.operands.size() == 2) {
    // Lexicographic on (real, imag), as StableHLO orders complex numbers.
    Instruction* y = inst.operands[1];
    const Shape parts(part, dims), preds(ElementType::kPred, dims);
    auto cmp = [&](Instruction* a, Instruction* b, ComparisonDirection d) {
      auto c = std::make_unique<Instruction>();
      c->opcode = Opcode::kCompare;
      c->shape = preds;
      c->operands = {a, b};
      c->direction = d;
      return Add(std::move(c), at);
    };
    Instruction *xr = Make(Opcode::kReal, parts, {x}, at), *yr = Make(Opcode::kReal, parts, {y}, at);
    Instruction *xi = Make(Opcode::kImag, parts, {x}, at), *yi = Make(Opcode::kImag, parts, {y}, at);
    const ComparisonDirection d = inst.opcode == Opcode::kMaximum ? ComparisonDirection::kGt : ComparisonDirection::kLt;
    Instruction* first = Make(Opcode::kOr, preds,
                              {cmp(xr, yr, d), Make(Opcode::kAnd, preds, {cmp(xr, yr, ComparisonDirection::kEq), cmp(xi, yi, d)}, at)}, at);
    Instruction* equal = Make(Opcode::kAnd, preds, {cmp(xr, yr, ComparisonDirection::kEq), cmp(xi, yi, ComparisonDirection::kEq)}, at);
    return Make(Opcode::kSelect, inst.shape, {Make(Opcode::kOr, preds, {first, equal}, at), x, y}, at);
  }
  if (inst.opcode == Opcode::kCbrt) {  // the principal cube root, exp(log(z) / 3)
    Instruction* three = Splat(Constant(Literal::ScalarOf(Scalar::Complex(from, {3, 0})), at), inst.shape, at);
    Instruction* log = Make(Opcode::kLog, inst.shape, {x}, at);
    return Make(Opcode::kExp, inst.shape, {Make(Opcode::kDivide, inst.shape, {log, three}, at)}, at);
  }
  return nullptr;
}

StatusOr<Instruction*> Reader::Value(const Statement& s, const std::string& name,
                                     std::map<std::string, Instruction*>& values) {
  auto it = values.find(name);
  if (it != values.end()) return it->second;
  for (size_t k = frames_.size(); k-- > 0;) {
    if (frames_[k].inner != &values) continue;
    // Captured: read it outside (capturing it there too if need be) and
    // pass it in as one more element of the region's parameter.
    const CaptureFrame f = frames_[k];
    VKXLA_ASSIGN_OR_RETURN(Instruction * outside, Value(s, name, *f.outer));
    if (!outside->shape.IsArray() && !outside->shape.IsToken())
      return c_.Error(s.at, "a region of this op reads " + name + " of type " + outside->shape.ToString() +
                                 " from outside, which is not supported");
    // A small value known before the run (a constant, a polymorphic
    // export's shape arithmetic) is made again inside: its shape operands
    // must fold there too.
    if (outside->shape.IsArray()) {
      StatusOr<std::optional<Literal>> known = FoldConstantExpression(*outside);
      if (known.ok() && *known) {
        Computation* saved = current_;
        current_ = f.computation;
        Instruction* inside = Constant(std::move(**known), s.at);
        current_ = saved;
        values[name] = inside;
        return inside;
      }
    }
    size_t j = 0;
    while (j < f.captures->size() && (*f.captures)[j] != outside) ++j;
    if (j == f.captures->size()) f.captures->push_back(outside);
    Computation* saved = current_;
    current_ = f.computation;
    Instruction* element = Make(Opcode::kGetTupleElement, outside->shape, {f.parameter}, s.at);
    element->tuple_index = f.first + static_cast<int64_t>(j);
    current_ = saved;
    values[name] = element;
    return element;
  }
  return c_.Error(s.at, "use of undefined value " + name);
}

StatusOr<Instruction*> Reader::Lower(const Statement& s, std::map<std::string, Instruction*>& values) {
  const std::string op = s.name.substr(s.name.find('.') + 1);
  for (const auto& [key, raw] : s.attributes)
    if (std::optional<std::string> bad = FirstBadInteger(raw))
      return c_.Error(s.at, s.name + ": integer " + *bad + " in " + key + " is out of range");
  for (const std::string& raw : s.brackets)
    if (std::optional<std::string> bad = FirstBadInteger(raw))
      return c_.Error(s.at, s.name + ": integer " + *bad + " in " + raw.substr(0, 40) + " is out of range");
  std::optional<Opcode> opcode = DirectOpcode(op);
  if (!opcode) return Unimplemented(c_.Where(s.at) + ": " + s.name + " is not implemented yet");
  const bool variadic = *opcode == Opcode::kScatter || *opcode == Opcode::kRngBitGenerator ||
                        *opcode == Opcode::kBatchNormTraining || *opcode == Opcode::kBatchNormGrad;
  if (s.results.size() != s.result_types.size() || s.results.empty() || (s.results.size() > 1 && !variadic))
    return c_.Error(s.at, s.name + " must have exactly one result");
  auto inst = std::make_unique<Instruction>();
  inst->opcode = *opcode;
  inst->shape = s.result_types.size() == 1 ? s.result_types[0] : Shape::Tuple(s.result_types);
  for (const std::string& o : s.operands) {
    VKXLA_ASSIGN_OR_RETURN(Instruction * v, Value(s, o, values));
    inst->operands.push_back(v);
  }
  if (inst->opcode == Opcode::kGetTupleElement && !inst->operands.empty() &&
      inst->operands[0]->opcode == Opcode::kTuple && !s.brackets.empty()) {
    const std::vector<int64_t> v = Integers(s.brackets[0]);
    const int64_t index = v.empty() ? -1 : v[0];  // fold: the element itself
    if (index >= 0 && index < static_cast<int64_t>(inst->operands[0]->operands.size()))
      return inst->operands[0]->operands[index];
  }
  VKXLA_ASSIGN_OR_RETURN(Instruction * extended, LowerStablehloExtension(*inst, s.at));
  if (extended) return extended;
  auto attr = [&](std::initializer_list<const char*> keys) -> std::optional<std::string> {
    for (const char* k : keys) {
      auto it = s.attributes.find(k);
      if (it != s.attributes.end()) return it->second;
    }
    return std::nullopt;
  };
  auto FirstInteger = [&](const std::string& raw) -> StatusOr<int64_t> {
    std::vector<int64_t> v = Integers(raw);
    if (v.empty()) return c_.Error(s.at, s.name + ": expected an integer, found '" + raw + "'");
    return v[0];
  };
  auto need = [&](std::initializer_list<const char*> keys) -> StatusOr<std::string> {
    auto v = attr(keys);
    if (!v) return c_.Error(s.at, s.name + " needs the attribute " + *keys.begin());
    return *v;
  };
  switch (*opcode) {
    case Opcode::kConstant: {
      DenseText d;
      if (s.dense) {
        d = *s.dense;
      } else {
        VKXLA_ASSIGN_OR_RETURN(std::string raw, need({"value"}));
        // "dense<...> : tensor<...>", read on its own.
        MlirCursor vc(raw);
        auto parsed = ParseDenseText(vc);
        if (!parsed.ok()) return c_.Error(s.at, "constant value: " + parsed.status().message());
        auto l = DenseToLiteral(vc, *parsed, inst->shape);
        if (!l.ok()) return c_.Error(s.at, "constant value: " + l.status().message());
        inst->literal = std::move(l).value();
        break;
      }
      VKXLA_ASSIGN_OR_RETURN(Literal l, DenseToLiteral(c_, d, inst->shape));
      inst->literal = std::move(l);
      break;
    }
    case Opcode::kCompare: {
      std::string dir = !s.keywords.empty() ? s.keywords[0] : "";
      std::string type = s.keywords.size() > 1 ? s.keywords[1] : "";
      if (auto d = attr({"comparison_direction"})) dir = LastWord(*d);
      if (auto t = attr({"compare_type"})) type = LastWord(*t);
      auto direction = ParseComparisonDirection(dir);
      if (!direction) return c_.Error(s.at, "unknown comparison direction '" + dir + "'");
      inst->direction = *direction;
      if (!type.empty()) {
        auto ct = ParseComparisonType(type);
        if (!ct) return c_.Error(s.at, "unknown comparison type '" + type + "'");
        inst->comparison_type = *ct;
      }
      break;
    }
    case Opcode::kIota: {
      VKXLA_ASSIGN_OR_RETURN(std::string raw, need({"dim", "iota_dimension"}));
      VKXLA_ASSIGN_OR_RETURN(inst->iota_dimension, FirstInteger(raw));
      break;
    }
    case Opcode::kBroadcast:
    case Opcode::kTranspose:
    case Opcode::kReverse:
    case Opcode::kConcatenate: {
      // The pretty form's short name, then the generic form's attribute.
      static const std::map<Opcode, std::pair<const char*, const char*>> kNames = {
          {Opcode::kBroadcast, {"dims", "broadcast_dimensions"}},
          {Opcode::kTranspose, {"dims", "permutation"}},
          {Opcode::kReverse, {"dims", "dimensions"}},
          {Opcode::kConcatenate, {"dim", "dimension"}}};
      const auto& [pretty, generic] = kNames.at(*opcode);
      VKXLA_ASSIGN_OR_RETURN(std::string raw, need({pretty, generic}));
      inst->dimensions = Integers(raw);
      break;
    }
    case Opcode::kBatchNormTraining:
    case Opcode::kBatchNormInference:
    case Opcode::kBatchNormGrad: {
      // epsilon = 1.0e-03 : f32, feature_index = 2 : i64
      VKXLA_ASSIGN_OR_RETURN(std::string eps, need({"epsilon"}));
      VKXLA_ASSIGN_OR_RETURN(std::string index, need({"feature_index"}));
      const std::string value = eps.substr(0, eps.find(':'));
      SetAttribute(*inst, "epsilon", value.substr(0, value.find_last_not_of(" ") + 1));
      const std::vector<int64_t> fi = Integers(index);
      if (fi.size() != 1) return c_.Error(s.at, s.name + ": feature_index = " + index + " is not one integer");
      SetAttribute(*inst, "feature_index", std::to_string(fi[0]));
      break;
    }
    case Opcode::kConvolution: {
      Status read = ReadStablehloConvolutionAttributes(s.attributes, *inst);
      if (!read.ok()) return c_.Error(s.at, read.message());
      break;
    }
    case Opcode::kFft: {
      // Pretty "type = RFFT, length = [8]"; generic
      // "fft_type = #stablehlo<fft_type RFFT>, fft_length = array<i64: 8>".
      VKXLA_ASSIGN_OR_RETURN(std::string type, need({"type", "fft_type"}));
      VKXLA_ASSIGN_OR_RETURN(std::string length, need({"length", "fft_length"}));
      SetAttribute(*inst, "fft_type", LastWord(type));
      SetAttribute(*inst, "fft_length", IntListText(Integers(length)));
      break;
    }
    case Opcode::kRngBitGenerator: {
      // Pretty "algorithm = PHILOX"; generic "rng_algorithm = #stablehlo<rng_algorithm PHILOX>".
      VKXLA_ASSIGN_OR_RETURN(std::string raw, need({"algorithm", "rng_algorithm"}));
      const std::string a = LastWord(raw);
      if (a == "DEFAULT") SetRngAlgorithm(*inst, RngAlgorithm::kDefault);
      else if (a == "THREE_FRY") SetRngAlgorithm(*inst, RngAlgorithm::kThreeFry);
      else if (a == "PHILOX") SetRngAlgorithm(*inst, RngAlgorithm::kPhilox);
      else return c_.Error(s.at, "stablehlo.rng_bit_generator: unknown algorithm '" + a + "' (DEFAULT, THREE_FRY or PHILOX)");
      break;
    }
    case Opcode::kRng: {
      // (a, b, shape): the shape operand is the result type's dims, which
      // the result already carries.
      if (inst->operands.size() != 3)
        return c_.Error(s.at, "stablehlo.rng takes a, b and the shape, got " + std::to_string(inst->operands.size()) + " operands");
      inst->operands.pop_back();
      // Pretty "distribution = UNIFORM"; generic "rng_distribution = #stablehlo<rng_distribution UNIFORM>".
      VKXLA_ASSIGN_OR_RETURN(std::string raw, need({"distribution", "rng_distribution"}));
      const std::string d = LastWord(raw);
      if (d == "UNIFORM") SetRngDistribution(*inst, RngDistribution::kUniform);
      else if (d == "NORMAL") SetRngDistribution(*inst, RngDistribution::kNormal);
      else return c_.Error(s.at, "stablehlo.rng: unknown distribution '" + d + "' (UNIFORM or NORMAL)");
      break;
    }
    case Opcode::kCholesky:
      SetCholeskyLower(*inst, attr({"lower"}).value_or("false") == "true");
      break;
    case Opcode::kTriangularSolve: {
      // "left_side = true, lower = true, unit_diagonal = false,
      // transpose_a = #stablehlo<transpose NO_TRANSPOSE>"
      TriangularSolveOptions o;
      o.left_side = attr({"left_side"}).value_or("false") == "true";
      o.lower = attr({"lower"}).value_or("false") == "true";
      o.unit_diagonal = attr({"unit_diagonal"}).value_or("false") == "true";
      const std::string t = LastWord(attr({"transpose_a"}).value_or("NO_TRANSPOSE"));
      if (t == "TRANSPOSE") o.transpose_a = TransposeA::kTranspose;
      else if (t == "ADJOINT") o.transpose_a = TransposeA::kAdjoint;
      else if (t != "NO_TRANSPOSE")
        return c_.Error(s.at, "stablehlo.triangular_solve: unknown transpose_a '" + t + "' (NO_TRANSPOSE, TRANSPOSE or ADJOINT)");
      SetTriangularSolveOptions(*inst, o);
      break;
    }
    case Opcode::kSlice: {
      std::vector<SliceDimension> dims;
      if (!s.brackets.empty()) {
        // [a:b, c:d:e]
        std::string body = s.brackets[0].substr(1, s.brackets[0].size() - 2);
        std::stringstream ss(body);
        std::string range;
        while (std::getline(ss, range, ',')) {
          std::vector<int64_t> v;
          std::stringstream rs(range);
          std::string part;
          while (std::getline(rs, part, ':')) {
            while (!part.empty() && part.front() == ' ') part.erase(part.begin());
            while (!part.empty() && part.back() == ' ') part.pop_back();
            const std::optional<int64_t> x = ParseInt64(part);
            if (!x) return c_.Error(s.at, "slice range '" + range + "': '" + part + "' is not an integer");
            v.push_back(*x);
          }
          if (v.size() < 2) return c_.Error(s.at, "slice range '" + range + "' needs start:limit");
          dims.push_back({v[0], v[1], v.size() > 2 ? v[2] : 1});
        }
      } else {
        VKXLA_ASSIGN_OR_RETURN(std::string start, need({"start_indices"}));
        VKXLA_ASSIGN_OR_RETURN(std::string limit, need({"limit_indices"}));
        std::vector<int64_t> a = Integers(start), b = Integers(limit), st = Integers(attr({"strides"}).value_or(""));
        for (size_t i = 0; i < a.size() && i < b.size(); ++i) dims.push_back({a[i], b[i], i < st.size() ? st[i] : 1});
      }
      inst->other_attributes.emplace_back("slice", SliceText(dims));
      break;
    }
    case Opcode::kPad: {
      VKXLA_ASSIGN_OR_RETURN(std::string low, need({"low", "edge_padding_low"}));
      VKXLA_ASSIGN_OR_RETURN(std::string high, need({"high", "edge_padding_high"}));
      VKXLA_ASSIGN_OR_RETURN(std::string interior, need({"interior", "interior_padding"}));
      std::vector<int64_t> l = Integers(low), h = Integers(high), in = Integers(interior);
      std::vector<PaddingDimension> dims;
      for (size_t i = 0; i < l.size() && i < h.size() && i < in.size(); ++i) dims.push_back({l[i], h[i], in[i]});
      inst->other_attributes.emplace_back("padding", PaddingText(dims));
      break;
    }
    case Opcode::kReducePrecision: {
      if (auto f = attr({"format"})) {
        // eXmY
        const size_t m = f->find('m');
        const std::optional<int64_t> e = f->size() > 1 && (*f)[0] == 'e' && m != std::string::npos
                                             ? ParseInt64(std::string_view(*f).substr(1, m - 1))
                                             : std::nullopt;
        const std::optional<int64_t> mb = e ? ParseInt64(std::string_view(*f).substr(m + 1)) : std::nullopt;
        if (!e || !mb) return c_.Error(s.at, "reduce_precision format '" + *f + "': expected eXmY, such as e5m10");
        inst->exponent_bits = *e;
        inst->mantissa_bits = *mb;
      } else {
        VKXLA_ASSIGN_OR_RETURN(std::string e, need({"exponent_bits"}));
        VKXLA_ASSIGN_OR_RETURN(std::string m, need({"mantissa_bits"}));
        VKXLA_ASSIGN_OR_RETURN(inst->exponent_bits, FirstInteger(e));
        VKXLA_ASSIGN_OR_RETURN(inst->mantissa_bits, FirstInteger(m));
      }
      break;
    }
    case Opcode::kDynamicSlice: {
      VKXLA_ASSIGN_OR_RETURN(std::string raw, need({"slice_sizes", "sizes"}));
      SetAttribute(*inst, "dynamic_slice_sizes", IntListText(Integers(raw)));
      break;
    }
    case Opcode::kGather:
    case Opcode::kScatter: {
      // #stablehlo.gather<...> / #stablehlo.scatter<...> fields carry HLO's
      // attribute names; lists become {..}, index_vector_dim stays a number.
      const bool gather = *opcode == Opcode::kGather;
      VKXLA_ASSIGN_OR_RETURN(std::string raw, need({gather ? "dimension_numbers" : "scatter_dimension_numbers"}));
      for (const auto& [key, value] : StructFields(raw))
        SetAttribute(*inst, key, value.rfind('[', 0) == 0 ? IntListText(Integers(value)) : value);
      // The printer leaves out fields at their defaults: empty lists and
      // index_vector_dim = 0.
      const std::vector<const char*> lists =
          gather ? std::vector<const char*>{"offset_dims", "collapsed_slice_dims", "operand_batching_dims",
                                            "start_indices_batching_dims", "start_index_map"}
                 : std::vector<const char*>{"update_window_dims", "inserted_window_dims", "input_batching_dims",
                                            "scatter_indices_batching_dims", "scatter_dims_to_operand_dims"};
      for (const char* key : lists)
        if (!FindAttribute(*inst, key)) SetAttribute(*inst, key, "{}");
      if (!FindAttribute(*inst, "index_vector_dim")) SetAttribute(*inst, "index_vector_dim", "0");
      for (const char* flag : {"indices_are_sorted", "unique_indices"})
        if (attr({flag}).value_or("false") == "true") SetAttribute(*inst, flag, "true");
      if (gather) {
        VKXLA_ASSIGN_OR_RETURN(std::string sizes, need({"slice_sizes"}));
        SetAttribute(*inst, "slice_sizes", IntListText(Integers(sizes)));
        break;
      }
      if (s.regions.size() != 1) return c_.Error(s.at, s.name + " needs one region (the update computation)");
      VKXLA_ASSIGN_OR_RETURN(Computation * update, TranslateRegion(s, 0, 0));
      inst->called_computations.emplace_back("to_apply", update);
      break;
    }
    case Opcode::kDot:
    case Opcode::kRaggedDot: {
      Status read = ReadStablehloDotAttributes(op, s.attributes, *inst);
      if (!read.ok()) return c_.Error(s.at, s.name + ": " + read.message());
      break;
    }
    case Opcode::kGetDimensionSize: {
      VKXLA_ASSIGN_OR_RETURN(std::string raw, need({"dimension", "dim"}));
      VKXLA_ASSIGN_OR_RETURN(int64_t d, FirstInteger(raw));
      inst->dimensions = std::vector<int64_t>{d};
      if (inst->operands.size() == 1) return DimensionSize(s, inst->operands[0], d);
      break;
    }
    case Opcode::kGetTupleElement: {
      std::string raw = s.brackets.empty() ? "" : s.brackets[0];
      if (raw.empty()) {
        VKXLA_ASSIGN_OR_RETURN(raw, need({"index"}));
      }
      VKXLA_ASSIGN_OR_RETURN(inst->tuple_index, FirstInteger(raw));
      break;
    }
    default:
      break;
  }
  return Add(std::move(inst), s.at);
}

Status Reader::AddCheck(const Statement& s, std::map<std::string, Instruction*>& values) {
  std::string op = s.name == "stablehlo.custom_call" ? s.callee.substr(1) : s.name;
  StablehloCheck check;
  check.op = op;
  check.location = c_.Where(s.at);
  if (op == "check.expect_eq" || op == "check.expect_eq_const" || op == "check.eq") check.kind = StablehloCheck::Kind::kEq;
  else if (op == "check.expect_almost_eq" || op == "check.expect_almost_eq_const") check.kind = StablehloCheck::Kind::kAlmostEq;
  else if (op == "check.expect_close") check.kind = StablehloCheck::Kind::kClose;
  else if (op == "check.expect_serialized_eq") check.kind = StablehloCheck::Kind::kReference;
  else return Unimplemented(check.location + ": " + op + " is not supported by vkxla conformance");
  if (s.operands.empty()) return c_.Error(s.at, op + " needs an operand");
  if (check.kind == StablehloCheck::Kind::kReference) {
    auto id = s.attributes.find("probe_id");
    if (id == s.attributes.end() || !probes_.count(id->second))
      return c_.Error(s.at, op + " names no interpreter.probe before it (probe_id)");
    VKXLA_ASSIGN_OR_RETURN(Instruction * actual, Value(s, s.operands[0], values));
    check.actual = static_cast<int>(check_values_.size());
    check_values_.push_back(actual);
    checks_.push_back(std::move(check));
    return OkStatus();
  }
  if (auto t = s.attributes.find("tolerance"); t != s.attributes.end()) {
    const std::string text = t->second.substr(0, t->second.find(':'));
    const std::optional<double> v = ParseDouble(std::string_view(text).substr(0, text.find_last_not_of(' ') + 1));
    if (!v) return c_.Error(s.at, op + ": tolerance '" + t->second + "' is not a number");
    check.tolerance = *v;
  }
  if (auto u = s.attributes.find("max_ulp_difference"); u != s.attributes.end() && !Integers(u->second).empty())
    check.max_ulp_difference = Integers(u->second)[0];
  VKXLA_ASSIGN_OR_RETURN(Instruction * actual, Value(s, s.operands[0], values));
  check.actual = static_cast<int>(check_values_.size());
  check_values_.push_back(actual);
  if (s.dense) {
    if (s.operand_types.empty()) return c_.Error(s.at, op + " needs the constant's type");
    VKXLA_ASSIGN_OR_RETURN(Literal l, DenseToLiteral(c_, *s.dense, s.operand_types.back()));
    check.expected = std::move(l);
  } else {
    if (s.operands.size() < 2) return c_.Error(s.at, op + " needs two operands");
    VKXLA_ASSIGN_OR_RETURN(Instruction * expected, Value(s, s.operands[1], values));
    check.expected_value = static_cast<int>(check_values_.size());
    check_values_.push_back(expected);
  }
  checks_.push_back(std::move(check));
  return OkStatus();
}

StatusOr<std::vector<Instruction*>> Reader::Translate(const Function& f, const std::vector<Instruction*>& args, int depth) {
  if (depth > 16) return c_.Error(f.body_begin, "func.call nesting deeper than 16 (recursion?)");
  std::map<std::string, Instruction*> values;
  for (size_t i = 0; i < f.arguments.size(); ++i) values[f.arguments[i].first] = args[i];
  return TranslateBody(f.body_begin, f.body_end, values, depth);
}

StatusOr<Computation*> Reader::TranslateRegion(const Statement& s, size_t region, int depth) {
  if (region_depth_ >= kMaxRegionDepth)
    return c_.Error(s.regions[region], "regions nest deeper than " + std::to_string(kMaxRegionDepth) + " levels");
  ++region_depth_;
  StatusOr<Computation*> c = TranslateRegionAt(s, region, depth);
  --region_depth_;
  return c;
}

StatusOr<size_t> Reader::EnterRegion(size_t open) {
  c_.set_position(open);
  VKXLA_RETURN_IF_ERROR(c_.Balanced().status());
  const size_t end = c_.position() - 1;
  c_.set_position(open + 1);
  return end;
}

StatusOr<Computation*> Reader::TranslateRegionAt(const Statement& s, size_t region, int depth) {
  const size_t saved = c_.position();
  const size_t open = s.regions[region];
  VKXLA_ASSIGN_OR_RETURN(const size_t end, EnterRegion(open));
  auto comp = std::make_unique<Computation>("region" + std::to_string(regions_.size()));
  Computation* outer = current_;
  current_ = comp.get();
  std::map<std::string, Instruction*> values;
  for (size_t k = 0; k < s.region_parameters.size(); ++k) {
    auto p = std::make_unique<Instruction>();
    p->opcode = Opcode::kParameter;
    p->parameter_number = static_cast<int64_t>(k);
    p->shape = s.region_parameters[k].second;
    values[s.region_parameters[k].first] = Add(std::move(p), open);
  }
  if (s.region_parameters.empty() && c_.Consume("^")) {  // ^bb0(%arg0: tensor<f32>, ...):
    c_.Identifier();
    VKXLA_RETURN_IF_ERROR(c_.Expect("("));
    int64_t number = 0;
    if (!c_.Consume(")")) {
      do {
        const size_t arg_at = c_.position();
        std::string name = c_.ValueName();
        if (name.empty()) return c_.Error("expected a block argument %name");
        VKXLA_RETURN_IF_ERROR(c_.Expect(":"));
        VKXLA_ASSIGN_OR_RETURN(Shape t, ParseMlirType(c_, 0, nullptr, true));
        auto p = std::make_unique<Instruction>();
        p->opcode = Opcode::kParameter;
        p->parameter_number = number++;
        p->shape = t;
        values[name] = Add(std::move(p), arg_at);
      } while (c_.Consume(","));
      VKXLA_RETURN_IF_ERROR(c_.Expect(")"));
    }
    VKXLA_RETURN_IF_ERROR(c_.Expect(":"));
  }
  StatusOr<std::vector<Instruction*>> returned = TranslateBody(c_.position(), end, values, depth + 1);
  current_ = outer;
  c_.set_position(saved);
  VKXLA_RETURN_IF_ERROR(returned.status());
  if (returned->empty()) return c_.Error(s.regions[region], "the region of " + s.name + " returns nothing");
  if (returned->size() == 1) {
    comp->set_root((*returned)[0]);
  } else {
    Computation* outer_again = current_;
    current_ = comp.get();
    std::vector<Shape> shapes;
    for (Instruction* r : *returned) shapes.push_back(r->shape);
    Instruction* tuple = Make(Opcode::kTuple, Shape::Tuple(shapes), *returned, s.regions[region]);
    current_ = outer_again;
    comp->set_root(tuple);
  }
  regions_.push_back(std::move(comp));
  return regions_.back().get();
}

StatusOr<Computation*> Reader::AppliedComputation(const Statement& s, const std::string& op,
                                                  const std::vector<Shape>& scalars) {
  std::optional<Opcode> opcode = op.rfind("stablehlo.", 0) == 0 ? DirectOpcode(op.substr(10)) : std::nullopt;
  if (!opcode || scalars.size() != 1) return c_.Error(s.at, "stablehlo.reduce applies " + op + ": expected one binary op");
  return BinaryComputation(*opcode, scalars[0], s.at);
}

Computation* Reader::BinaryComputation(Opcode opcode, const Shape& scalar, size_t at) {
  auto comp = std::make_unique<Computation>("region" + std::to_string(regions_.size()));
  Computation* outer = current_;
  current_ = comp.get();
  std::vector<Instruction*> params;
  for (int64_t k = 0; k < 2; ++k) {
    auto p = std::make_unique<Instruction>();
    p->opcode = Opcode::kParameter;
    p->parameter_number = k;
    p->shape = scalar;
    params.push_back(Add(std::move(p), at));
  }
  comp->set_root(Make(opcode, scalar, params, at));
  current_ = outer;
  regions_.push_back(std::move(comp));
  return regions_.back().get();
}

StatusOr<std::vector<Instruction*>> Reader::LowerRegionOp(const Statement& s, std::map<std::string, Instruction*>& values) {
  std::vector<Instruction*> operands;
  for (const std::string& o : s.operands) {
    VKXLA_ASSIGN_OR_RETURN(Instruction * v, Value(s, o, values));
    operands.push_back(v);
  }
  if (s.result_types.empty() || s.result_types.size() > kMaxResults) return c_.Error(s.at, s.name + " needs result types");
  auto attr = [&](const char* key) -> std::optional<std::string> {
    auto it = s.attributes.find(key);
    if (it == s.attributes.end()) return std::nullopt;
    return it->second;
  };
  auto ints = [&](const char* key, int64_t fill, size_t rank) {
    std::optional<std::string> raw = attr(key);
    return raw ? Integers(*raw) : std::vector<int64_t>(rank, fill);
  };
  auto inst = std::make_unique<Instruction>();
  inst->operands = operands;
  inst->shape = s.result_types.size() == 1 ? s.result_types[0] : Shape::Tuple(s.result_types);
  const std::string op = s.name.substr(s.name.find('.') + 1);
  const size_t regions = op == "select_and_scatter" ? 2 : 1;
  if (!attr("applies") && s.regions.size() != regions)
    return c_.Error(s.at, s.name + " needs " + std::to_string(regions) + (regions == 1 ? " region" : " regions"));
  auto window = [&](const Shape& operand) -> StatusOr<std::string> {
    const size_t rank = static_cast<size_t>(operand.rank());
    Window w = UnitWindow(ints("window_dimensions", 1, rank));
    if (w.size.size() != rank)
      return c_.Error(s.at, s.name + ": window_dimensions has " + std::to_string(w.size.size()) + " entries for " +
                                operand.ToString());
    w.stride = ints("window_strides", 1, rank);
    w.base_dilation = ints("base_dilations", 1, rank);
    w.window_dilation = ints("window_dilations", 1, rank);
    const std::vector<int64_t> padding = ints("padding", 0, 2 * rank);
    if (w.stride.size() != rank || w.base_dilation.size() != rank || w.window_dilation.size() != rank ||
        padding.size() != 2 * rank)
      return c_.Error(s.at, s.name + ": window attributes must have one entry per dimension of " + operand.ToString());
    for (size_t d = 0; d < rank; ++d) {
      w.pad_low[d] = padding[2 * d];
      w.pad_high[d] = padding[2 * d + 1];
    }
    return w.ToString();
  };
  if (op == "reduce" || op == "reduce_window") {
    if (operands.size() != 2 * s.result_types.size())
      return c_.Error(s.at, s.name + " takes as many initial values as operands");
    inst->opcode = op == "reduce" ? Opcode::kReduce : Opcode::kReduceWindow;
    if (op == "reduce") {
      std::optional<std::string> dims = attr("dimensions");
      if (!dims) return c_.Error(s.at, "stablehlo.reduce needs dimensions");
      inst->dimensions = Integers(*dims);
    } else {
      VKXLA_ASSIGN_OR_RETURN(std::string w, window(operands[0]->shape));
      SetAttribute(*inst, "window", w);
    }
    Computation* to_apply = nullptr;
    if (std::optional<std::string> applied = attr("applies")) {
      std::vector<Shape> scalars;
      for (size_t k = operands.size() / 2; k < operands.size(); ++k) scalars.push_back(operands[k]->shape);
      VKXLA_ASSIGN_OR_RETURN(to_apply, AppliedComputation(s, *applied, scalars));
    } else {
      VKXLA_ASSIGN_OR_RETURN(to_apply, TranslateRegion(s, 0, 0));
    }
    inst->called_computations.emplace_back("to_apply", to_apply);
  } else if (op == "sort") {
    inst->opcode = Opcode::kSort;
    const int64_t rank = operands.empty() ? 0 : operands[0]->shape.rank();
    int64_t dimension = -1;
    if (std::optional<std::string> d = attr("dimension")) {
      const std::vector<int64_t> v = Integers(*d);
      if (v.size() != 1) return c_.Error(s.at, "stablehlo.sort: dimension must be one integer");
      dimension = v[0];
    }
    if (dimension < 0) dimension += rank;
    inst->dimensions = std::vector<int64_t>{dimension};
    SetAttribute(*inst, "is_stable", attr("is_stable").value_or("false").find("true") != std::string::npos ? "true" : "false");
    VKXLA_ASSIGN_OR_RETURN(Computation * comparator, TranslateRegion(s, 0, 0));
    inst->called_computations.emplace_back("to_apply", comparator);
  } else if (op == "scan") {
    // chlo.scan(inputs) inits(carries): XLA's Scan, whose to_apply takes
    // the inputs' slices then the carries and gives outputs then carries.
    inst->opcode = Opcode::kScan;
    SetAttribute(*inst, "scan_dimension", attr("dimension").value_or("0"));
    SetAttribute(*inst, "is_reverse", attr("is_reverse").value_or("false").find("true") != std::string::npos ? "true" : "false");
    if (std::optional<std::string> a = attr("is_associative"))
      SetAttribute(*inst, "is_associative", a->find("true") != std::string::npos ? "true" : "false");
    VKXLA_ASSIGN_OR_RETURN(Computation * f, TranslateRegion(s, 0, 0));
    inst->called_computations.emplace_back("to_apply", f);
  } else if (op == "map") {
    inst->opcode = Opcode::kMap;
    std::optional<std::string> dims = attr("dimensions");
    if (!dims) return c_.Error(s.at, "stablehlo.map needs dimensions");
    inst->dimensions = Integers(*dims);
    VKXLA_ASSIGN_OR_RETURN(Computation * f, TranslateRegion(s, 0, 0));
    inst->called_computations.emplace_back("to_apply", f);
  } else {  // select_and_scatter(operand, source, init_value)
    if (operands.size() != 3) return c_.Error(s.at, "stablehlo.select_and_scatter takes an operand, a source and an init value");
    inst->opcode = Opcode::kSelectAndScatter;
    VKXLA_ASSIGN_OR_RETURN(std::string w, window(operands[0]->shape));
    SetAttribute(*inst, "window", w);
    VKXLA_ASSIGN_OR_RETURN(Computation * select, TranslateRegion(s, 0, 0));
    VKXLA_ASSIGN_OR_RETURN(Computation * scatter, TranslateRegion(s, 1, 0));
    inst->called_computations.emplace_back("select", select);
    inst->called_computations.emplace_back("scatter", scatter);
  }
  Instruction* made = Add(std::move(inst), s.at);
  if (s.result_types.size() == 1) return std::vector<Instruction*>{made};
  return Elements(made, s.result_types, s.at);
}

Status Reader::ValueList(std::vector<std::string>& out, const std::string& what) {
  VKXLA_RETURN_IF_ERROR(c_.Expect("("));
  if (c_.Consume(")")) return OkStatus();
  do {
    std::string v = c_.ValueName();
    if (v.empty()) return c_.Error("expected " + what);
    out.push_back(v);
  } while (c_.Consume(","));
  return c_.Expect(")");
}

Status Reader::ParseManualComputationHeader(Statement& s) {
  // (%operands) in_shardings=[...] out_shardings=[...] manual_axes={...}
  // (%arg: type, ...) { body; sdy.return ... } {attributes} : (types) -> types
  VKXLA_RETURN_IF_ERROR(ValueList(s.operands, "an operand of sdy.manual_computation"));
  for (const char* key : {"in_shardings", "out_shardings", "manual_axes"}) {
    VKXLA_RETURN_IF_ERROR(c_.Expect(key));
    VKXLA_RETURN_IF_ERROR(c_.Expect("="));
    VKXLA_ASSIGN_OR_RETURN(s.attributes[key], c_.Balanced());
  }
  VKXLA_RETURN_IF_ERROR(c_.Expect("("));
  if (!c_.Consume(")")) {
    do {
      std::string arg = c_.ValueName();
      if (arg.empty()) return c_.Error("expected a block argument %name of sdy.manual_computation");
      VKXLA_RETURN_IF_ERROR(c_.Expect(":"));
      VKXLA_ASSIGN_OR_RETURN(Shape t, ParseMlirType(c_, 0, nullptr, true));
      s.region_parameters.emplace_back(arg, t);
    } while (c_.Consume(","));
    VKXLA_RETURN_IF_ERROR(c_.Expect(")"));
  }
  c_.SkipSpace();
  if (c_.Peek() != '{') return c_.Error("expected the body of sdy.manual_computation");
  s.regions.push_back(c_.position());
  VKXLA_RETURN_IF_ERROR(c_.Balanced().status());
  if (c_.Peek() == '{') VKXLA_RETURN_IF_ERROR(ParseAttributeDict(s));
  return ParseSignature(s);
}

StatusOr<std::vector<Instruction*>> Reader::TranslateManualComputation(const Statement& s,
                                                                       std::map<std::string, Instruction*>& values, int depth) {
  // The manual axes' sizes, from the mesh the shardings name (@mesh) or
  // write in line (mesh<[...]>).
  const std::string& shardings = s.attributes.at("in_shardings") + s.attributes.at("out_shardings");
  std::map<std::string, int64_t> axes;
  if (const size_t inline_mesh = shardings.find("mesh<"); inline_mesh != std::string::npos) {
    axes = MeshAxes(shardings.substr(inline_mesh + 4));
  } else if (const size_t at = shardings.find('@'); at != std::string::npos) {
    size_t end = at + 1;
    while (end < shardings.size() && (std::isalnum(static_cast<unsigned char>(shardings[end])) || shardings[end] == '_' ||
                                      shardings[end] == '.' || shardings[end] == '$'))
      ++end;
    const std::string mesh = shardings.substr(at, end - at);
    auto found = mesh_text_.find(mesh);
    if (found == mesh_text_.end()) return c_.Error(s.at, "sdy.manual_computation names " + mesh + ", which no sdy.mesh defines");
    axes = MeshAxes(found->second);
  }
  std::string sharded;
  for (const std::string& axis : QuotedStrings(s.attributes.at("manual_axes"))) {
    auto size = axes.find(axis);
    if (size == axes.end()) return c_.Error(s.at, "sdy.manual_computation's manual axis \"" + axis + "\" is not an axis of its mesh");
    if (size->second != 1) sharded += (sharded.empty() ? "\"" : ", \"") + axis + "\"=" + std::to_string(size->second);
  }
  if (!sharded.empty()) return ExpandManual(s, values, depth);
  // Every manual axis has size 1: each device's shard is the whole array.
  if (s.region_parameters.size() != s.operands.size() || s.operand_types.size() != s.operands.size())
    return c_.Error(s.at, "sdy.manual_computation takes " + std::to_string(s.operands.size()) + " operands but its body " +
                              std::to_string(s.region_parameters.size()) + " arguments");
  std::map<std::string, Instruction*> inner;
  for (size_t i = 0; i < s.operands.size(); ++i) {
    VKXLA_ASSIGN_OR_RETURN(Instruction * v, Value(s, s.operands[i], values));
    if (!s.region_parameters[i].second.Compatible(v->shape))
      return c_.Error(s.at, "sdy.manual_computation's argument " + s.region_parameters[i].first + " is " +
                                s.region_parameters[i].second.ToString() + " but its operand is " + v->shape.ToString());
    inner[s.region_parameters[i].first] = v;
  }
  if (region_depth_ >= kMaxRegionDepth)
    return c_.Error(s.regions[0], "regions nest deeper than " + std::to_string(kMaxRegionDepth) + " levels");
  VKXLA_ASSIGN_OR_RETURN(const size_t end, EnterRegion(s.regions[0]));
  ++region_depth_;
  StatusOr<std::vector<Instruction*>> returned = TranslateBody(c_.position(), end, inner, depth + 1);
  --region_depth_;
  VKXLA_RETURN_IF_ERROR(returned.status());
  if (returned->size() != s.result_types.size())
    return c_.Error(s.at, "sdy.manual_computation's body returns " + std::to_string(returned->size()) + " values for " +
                              std::to_string(s.result_types.size()) + " results");
  for (size_t i = 0; i < returned->size(); ++i)
    if (!(*returned)[i]->shape.Compatible(s.result_types[i]))
      return c_.Error(s.at, "sdy.manual_computation's result " + std::to_string(i) + " is " + s.result_types[i].ToString() +
                                " but its body returns " + (*returned)[i]->shape.ToString());
  return *returned;
}

ComputationBuilders Reader::BuildersAt(size_t at) {
  ComputationBuilders b;
  b.make = Makers(at).first;
  b.constant = Makers(at).second;
  b.new_computation = [this] {
    regions_.push_back(std::make_unique<Computation>("region" + std::to_string(regions_.size())));
    return regions_.back().get();
  };
  b.make_in = [this, at](Computation* c) -> HloMaker {
    return [this, at, c](Opcode op, const Shape& shape, std::vector<Instruction*> operands) {
      Computation* outer = current_;
      current_ = c;
      Instruction* i = Make(op, shape, std::move(operands), at);
      current_ = outer;
      return i;
    };
  };
  b.constant_in = [this, at](Computation* c) -> ConstantMaker {
    return [this, at, c](Literal value) {
      Computation* outer = current_;
      current_ = c;
      Instruction* i = Constant(std::move(value), at);
      current_ = outer;
      return i;
    };
  };
  return b;
}

StatusOr<std::vector<Instruction*>> Reader::ExpandManual(const Statement& s, std::map<std::string, Instruction*>& values, int depth) {
  // The body as a computation of its own, written out once per device by
  // frontends/spmd_expansion.h, then dropped.
  // Errors from outside the reader, placed at the statement.
  auto located = [&](auto r) -> decltype(r) {
    if (r.ok()) return r;
    return Status(r.status().code(), c_.Where(s.at) + ": sdy.manual_computation: " + r.status().message());
  };
  ManualComputation m;
  const std::string& in = s.attributes.at("in_shardings");
  VKXLA_ASSIGN_OR_RETURN(m.in_shardings, located(ParseShardingList(in)));
  VKXLA_ASSIGN_OR_RETURN(m.out_shardings, located(ParseShardingList(s.attributes.at("out_shardings"))));
  std::string mesh_text;
  for (const std::vector<TensorSharding>* list : {&m.in_shardings, &m.out_shardings})
    for (const TensorSharding& t : *list) {
      const std::string text = t.inline_mesh.empty() ? (mesh_text_.count(t.mesh) ? mesh_text_.at(t.mesh) : "") : t.inline_mesh.substr(4);
      if (text.empty()) return c_.Error(s.at, "sdy.manual_computation names " + t.mesh + ", which no sdy.mesh defines");
      if (!mesh_text.empty() && text != mesh_text) return c_.Error(s.at, "sdy.manual_computation's shardings name different meshes");
      mesh_text = text;
    }
  VKXLA_ASSIGN_OR_RETURN(m.mesh, located(ParseSdyMesh(mesh_text)));
  m.manual_axes = QuotedStrings(s.attributes.at("manual_axes"));
  m.result_types = s.result_types;
  std::vector<Instruction*> operands;
  for (const std::string& o : s.operands) {
    VKXLA_ASSIGN_OR_RETURN(Instruction * v, Value(s, o, values));
    operands.push_back(v);
  }
  // One inside another's body would be written out for the outer's first
  // positions only (its partition_id wrong on the others).
  if (manual_depth_ > 0)
    return c_.Error(s.at, "sdy.manual_computation inside another's body (a nested shard_map) over axes of more than one device: "
                          "not written out per device");
  ++manual_depth_;
  StatusOr<Computation*> translated = TranslateRegion(s, 0, depth);
  --manual_depth_;
  VKXLA_ASSIGN_OR_RETURN(Computation * body, std::move(translated));
  m.body = body;
  StatusOr<std::vector<Instruction*>> results = located(ExpandManualComputation(m, operands, BuildersAt(s.at)));
  // The body, and what only its collectives' lockstep loops read, are in no program now.
  const std::vector<const Computation*> consumed = ConsumedComputations(body);
  std::erase_if(regions_, [&](const std::unique_ptr<Computation>& c) {
    return std::find(consumed.begin(), consumed.end(), c.get()) != consumed.end();
  });
  return results;
}

StatusOr<bool> Reader::LowerQuantized(Statement& s, std::map<std::string, Instruction*>& values, std::vector<Instruction*>& out) {
  const std::string op = s.name.rfind("stablehlo.", 0) == 0 ? s.name.substr(10) : s.name;
  // A constant's values are the storage type's, as written; returns and
  // checks pass the values as they are held.
  if (op == "constant" || op == "func.return" || op.rfind("check.", 0) == 0) return false;
  if (s.operand_types.size() == 1 && s.operands.size() > 1) {  // the pretty form's one type for all
    s.operand_types.resize(s.operands.size(), s.operand_types[0]);
    s.operand_quantized.resize(s.operands.size(), s.operand_quantized[0]);
  }
  if (s.operand_types.size() != s.operands.size() || s.result_types.size() != s.results.size())
    return c_.Error(s.at, s.name + " on quantized values needs a type for each operand and result");
  const auto [make, constant] = Makers(s.at);
  auto located = [&](StatusOr<Instruction*> r) -> StatusOr<Instruction*> {
    if (!r.ok()) return c_.Error(s.at, s.name + ": " + r.status().message());
    return r;
  };

  std::vector<Instruction*> operands;
  for (const std::string& o : s.operands) {
    VKXLA_ASSIGN_OR_RETURN(Instruction * v, Value(s, o, values));
    operands.push_back(v);
  }
  const std::optional<QuantizedType> result = s.result_quantized.size() == 1 ? s.result_quantized[0] : std::nullopt;
  if (op == "bitcast_convert") {
    // Between a quantized type and its storage type: the same bits.
    if (operands.size() != 1 || s.results.size() != 1 || operands[0]->shape.element_type() != s.result_types[0].element_type() ||
        operands[0]->shape.dims() != s.result_types[0].dims())
      return c_.Error(s.at, "stablehlo.bitcast_convert of a quantized value goes to or from its storage type");
    out = {operands[0]};
    return true;
  }
  if (op == "uniform_quantize") {
    if (operands.size() != 1 || s.results.size() != 1 || !result)
      return c_.Error(s.at, "stablehlo.uniform_quantize takes one value to a quantized type");
    Instruction* x = operands[0];
    if (s.operand_quantized[0]) {
      VKXLA_ASSIGN_OR_RETURN(x, located(Dequantize(x, *s.operand_quantized[0], make, constant)));
    }
    if (x->shape.element_type() != result->expressed) x = make(Opcode::kConvert, Shape(result->expressed, x->shape.dims()), {x});
    VKXLA_ASSIGN_OR_RETURN(Instruction * q, located(Quantize(x, *result, make, constant)));
    out = {q};
    return true;
  }
  if (op == "uniform_dequantize") {
    if (operands.size() != 1 || s.results.size() != 1 || !s.operand_quantized[0] || result)
      return c_.Error(s.at, "stablehlo.uniform_dequantize takes one quantized value to its expressed type");
    VKXLA_ASSIGN_OR_RETURN(Instruction * x, located(Dequantize(operands[0], *s.operand_quantized[0], make, constant)));
    out = {x};
    return true;
  }
  // Any other op: over the dequantized operands, its results in the
  // expressed type, quantized after it runs.
  for (size_t i = 0; i < operands.size(); ++i) {
    if (!s.operand_quantized[i]) continue;
    VKXLA_ASSIGN_OR_RETURN(Instruction * x, located(Dequantize(operands[i], *s.operand_quantized[i], make, constant)));
    const std::string fresh = "%quantized." + std::to_string(quantized_names_++);
    values[fresh] = x;
    s.operands[i] = fresh;
    s.operand_types[i] = x->shape;
    s.operand_quantized[i].reset();
  }
  for (size_t r = 0; r < s.results.size(); ++r) {
    if (!s.result_quantized[r]) continue;
    const QuantizedType& q = *s.result_quantized[r];
    const std::string fresh = "%quantized." + std::to_string(quantized_names_++);
    pending_quantize_.push_back({fresh, s.results[r], q, s.at, &values});
    s.results[r] = fresh;
    s.result_types[r] = Shape(q.expressed, s.result_types[r].dims());
    s.result_quantized[r].reset();
  }
  return false;
}

Status Reader::FlushQuantized(std::map<std::string, Instruction*>& values) {
  // Only this body's: a region read while its op runs has its own values.
  std::vector<PendingQuantize> pending, others;
  for (PendingQuantize& p : pending_quantize_) (p.scope == &values ? pending : others).push_back(std::move(p));
  pending_quantize_ = std::move(others);
  for (const PendingQuantize& p : pending) {
    auto computed = values.find(p.computed);
    if (computed == values.end()) return c_.Error(p.at, "the quantized op gave no value for " + p.name);
    const auto [make, constant] = Makers(p.at);
    StatusOr<Instruction*> q = Quantize(computed->second, p.type, make, constant);
    if (!q.ok()) return c_.Error(p.at, q.status().message());
    values[p.name] = *q;
  }
  return OkStatus();
}

StatusOr<std::vector<int64_t>> Reader::ConstantOperand(const Statement& s, size_t i, std::map<std::string, Instruction*>& values) {
  VKXLA_ASSIGN_OR_RETURN(Instruction * v, Value(s, s.operands[i], values));
  const Shape& t = v->shape;
  if (!t.IsArray() || t.rank() > 2 || !(IsSignedInt(t.element_type()) || IsUnsignedInt(t.element_type())))
    return c_.Error(s.at, s.name + "'s operand " + s.operands[i] + " must be an integer vector, not " + t.ToString());
  // A constant, or shape arithmetic on constants (a polymorphic export's
  // sizes once get_dimension_size has folded).
  std::optional<Literal> folded;
  if (v->opcode == Opcode::kConstant && v->literal) {
    folded = *v->literal;
  } else {
    StatusOr<std::optional<Literal>> value = FoldConstantExpression(*v);
    if (!value.ok()) return c_.Error(s.at, s.name + "'s operand " + s.operands[i] + ": " + value.status().message());
    folded = std::move(*value);
  }
  if (!folded)
    return Unimplemented(c_.Where(s.at) + ": " + s.name + " with " + s.operands[i] +
                         " computed at run time is not supported; only a constant");
  std::vector<int64_t> out;
  for (int64_t k = 0; k < t.element_count(); ++k) {
    const Scalar x = folded->Get(k);
    if (IsUnsignedInt(t.element_type()) && x.u > static_cast<uint64_t>(INT64_MAX))
      return c_.Error(s.at, s.name + "'s operand " + s.operands[i] + " holds " + std::to_string(x.u) + ", past int64");
    out.push_back(IsSignedInt(t.element_type()) ? x.s : static_cast<int64_t>(x.u));
  }
  return out;
}

Status Reader::StaticForm(Statement& s, std::map<std::string, Instruction*>& values) {
  const std::string op = s.name.substr(10);
  const size_t count = op == "dynamic_pad" ? 5 : op == "real_dynamic_slice" ? 4 : op == "dynamic_conv" || op == "dynamic_gather" ? 3
                     : op == "dynamic_iota" ? 1 : 2;
  if (s.operands.size() != count || s.operand_types.size() != count || s.result_types.size() != 1)
    return c_.Error(s.at, s.name + " takes " + std::to_string(count) + " operands and gives one result");
  auto array = [](const std::vector<int64_t>& v) {
    std::string t = "array<i64: ";
    for (size_t i = 0; i < v.size(); ++i) t += (i ? ", " : "") + std::to_string(v[i]);
    return t + ">";
  };
  size_t keep = 0;  // operands the static op takes, from the first
  if (op == "dynamic_conv") {
    VKXLA_ASSIGN_OR_RETURN(std::vector<int64_t> pads, ConstantOperand(s, 2, values));
    std::string dense = "dense<[";
    for (size_t i = 0; i + 1 < pads.size(); i += 2)
      dense += (i ? ", [" : "[") + std::to_string(pads[i]) + ", " + std::to_string(pads[i + 1]) + "]";
    if (pads.size() % 2) return c_.Error(s.at, "stablehlo.dynamic_conv's padding needs a (low, high) pair per spatial dim");
    s.attributes["padding"] = dense + "]>";
    keep = 2;
  } else if (op == "dynamic_pad") {
    const char* keys[3] = {"edge_padding_low", "edge_padding_high", "interior_padding"};
    for (size_t k = 0; k < 3; ++k) {
      VKXLA_ASSIGN_OR_RETURN(std::vector<int64_t> v, ConstantOperand(s, 2 + k, values));
      s.attributes[keys[k]] = array(v);
    }
    keep = 2;
  } else if (op == "real_dynamic_slice") {
    const char* keys[3] = {"start_indices", "limit_indices", "strides"};
    for (size_t k = 0; k < 3; ++k) {
      VKXLA_ASSIGN_OR_RETURN(std::vector<int64_t> v, ConstantOperand(s, 1 + k, values));
      s.attributes[keys[k]] = array(v);
    }
    keep = 1;
  } else if (op == "dynamic_gather") {
    VKXLA_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, ConstantOperand(s, 2, values));
    s.attributes["slice_sizes"] = array(sizes);
    keep = 2;
  } else {
    // dynamic_iota, dynamic_broadcast_in_dim, dynamic_reshape: the shape
    // operand restates the result type, whose open dims it fills (shape
    // refinement: it must then fold to a constant); where it is a constant
    // it must agree.
    const size_t shape_operand = op == "dynamic_iota" ? 0 : 1;
    Shape& result = s.result_types[0];
    if (!result.IsArray()) return c_.Error(s.at, s.name + " gives an array, not " + result.ToString());
    StatusOr<std::vector<int64_t>> dims = ConstantOperand(s, shape_operand, values);
    if (!dims.ok() && (dims.status().code() != StatusCode::kUnimplemented || HasUnknownDims(result))) return dims.status();
    if (dims.ok()) {
      bool fits = static_cast<int64_t>(dims->size()) == result.rank();
      for (size_t d = 0; fits && d < dims->size(); ++d)
        fits = (*dims)[d] >= 0 && (*dims)[d] <= kMaxElements && (result.dim(d) == kUnknownDim || result.dim(d) == (*dims)[d]);
      if (!fits)
        return c_.Error(s.at, s.name + "'s shape operand " + s.operands[shape_operand] + " does not match its result type " +
                                  ShapeWithUnknownDims(result));
      result = Shape(result.element_type(), *dims);
    }
    keep = op == "dynamic_iota" ? 0 : 1;
  }
  s.name = op == "dynamic_conv" ? "stablehlo.convolution" : op == "real_dynamic_slice" ? "stablehlo.slice" : "stablehlo." + op.substr(8);
  s.operands.resize(keep);
  s.operand_types.resize(keep);
  return OkStatus();
}

StatusOr<Instruction*> Reader::DimensionSize(const Statement& s, Instruction* operand, int64_t dim) {
  const Shape& x = operand->shape;
  if (!x.IsArray() || dim < 0 || dim >= x.rank())
    return c_.Error(s.at, s.name + ": dimension " + std::to_string(dim) + " of " + x.ToString() + " does not exist");
  if (x.is_dynamic_dim(dim)) return Internal("a bounded dimension in StableHLO");
  const ElementType t = s.result_types.empty() || !s.result_types[0].IsArray() ? ElementType::kS32 : s.result_types[0].element_type();
  if (!IsInteger(t)) return c_.Error(s.at, s.name + " gives an integer, not " + s.result_types[0].ToString());
  return Constant(Literal::ScalarOf(Scalar::Int(t, x.dim(dim))), s.at);
}

Status Reader::ShapeAssertion(const Statement& s, std::map<std::string, Instruction*>& values) {
  // custom_call @shape_assertion(%ok, %dim...) {error_message = "... {0} ..."}:
  // jax.export's check that the arguments fit the polymorphic shapes it
  // was written for. With the shapes known it folds; a false one is the
  // export's own message with the values put in.
  std::vector<Literal> folded;
  for (const std::string& o : s.operands) {
    VKXLA_ASSIGN_OR_RETURN(Instruction * v, Value(s, o, values));
    StatusOr<std::optional<Literal>> value = FoldConstantExpression(*v);
    if (!value.ok() || !*value || !value->value().shape().IsArray() || value->value().element_count() != 1)
      return Unimplemented(c_.Where(s.at) + ": shape_assertion on " + o + ", which is not known before the run");
    folded.push_back(std::move(**value));
  }
  if (folded.empty() || folded[0].shape().element_type() != ElementType::kPred)
    return c_.Error(s.at, "shape_assertion takes a predicate first");
  if (folded[0].Get(0).s != 0 || folded[0].Get(0).u != 0) return OkStatus();
  std::string message = "shape assertion failed";
  if (auto m = s.attributes.find("error_message"); m != s.attributes.end()) {
    message = m->second;
    if (message.size() >= 2 && message.front() == '"') message = message.substr(1, message.rfind('"') - 1);
    for (size_t k = 1; k < folded.size(); ++k) {
      const std::string placeholder = "{" + std::to_string(k - 1) + "}";
      const std::string value = folded[k].ValuesToString();
      for (size_t at = message.find(placeholder); at != std::string::npos; at = message.find(placeholder, at + value.size()))
        message.replace(at, placeholder.size(), value);
    }
  }
  return InvalidArgument(c_.Where(s.at) + ": " + message);
}

StatusOr<Computation*> Reader::FunctionComputation(const Statement& s, const std::string& name, int depth) {
  const Function* f = FindFunction(name);
  if (!f) return c_.Error(s.at, s.name + " calls " + name + ", which is not a func.func with a body");
  if (region_depth_ >= kMaxRegionDepth || depth > 16)
    return c_.Error(s.at, "computations nest deeper than " + std::to_string(kMaxRegionDepth) + " levels");
  auto comp = std::make_unique<Computation>("region" + std::to_string(regions_.size()));
  Computation* outer = current_;
  current_ = comp.get();
  std::vector<Instruction*> args;
  for (size_t i = 0; i < f->arguments.size(); ++i) {
    auto p = std::make_unique<Instruction>();
    p->opcode = Opcode::kParameter;
    p->parameter_number = static_cast<int64_t>(i);
    p->shape = f->arguments[i].second;
    args.push_back(Add(std::move(p), f->body_begin));
  }
  ++region_depth_;
  StatusOr<std::vector<Instruction*>> returned = Translate(*f, args, depth + 1);
  --region_depth_;
  if (returned.ok() && returned->empty()) returned = c_.Error(f->body_begin, name + " returns nothing");
  if (returned.ok()) comp->set_root(TupleOf(*returned, f->body_begin));
  current_ = outer;
  VKXLA_RETURN_IF_ERROR(returned.status());
  regions_.push_back(std::move(comp));
  return regions_.back().get();
}

StatusOr<std::vector<Instruction*>> Reader::LowerExpandedCall(const Statement& s, const std::string& target,
                                                              std::map<std::string, Instruction*>& values, int depth) {
  ExpandedCustomCall call;
  call.target = target;
  for (const std::string& o : s.operands) {
    VKXLA_ASSIGN_OR_RETURN(Instruction * v, Value(s, o, values));
    call.operands.push_back(v);
  }
  call.result_types = s.result_types;
  call.attributes = s.attributes;
  if (auto called = s.attributes.find("called_computations"); called != s.attributes.end()) {
    const size_t at = called->second.find('@');
    if (at != std::string::npos) {
      size_t end = at + 1;
      while (end < called->second.size() && called->second[end] != ',' && called->second[end] != ']' &&
             !std::isspace(static_cast<unsigned char>(called->second[end])))
        ++end;
      std::string name = called->second.substr(at, end - at);
      if (name.size() > 2 && name[1] == '"') name = "@" + name.substr(2, name.size() - 3);  // @"quoted"
      VKXLA_ASSIGN_OR_RETURN(call.computation, FunctionComputation(s, name, depth));
    }
  }
  call.logical_or = [&] { return BinaryComputation(Opcode::kOr, Shape::Scalar(ElementType::kPred), s.at); };
  const size_t at = s.at;
  call.builders = BuildersAt(at);
  call.integers = [&](size_t i) -> StatusOr<std::vector<int64_t>> {
    if (i >= s.operands.size()) return c_.Error(s.at, "custom_call @" + target + " has no operand " + std::to_string(i));
    return ConstantOperand(s, i, values);
  };
  const auto [make, constant] = Makers(s.at);
  StatusOr<std::vector<Instruction*>> r = LowerExpandedCustomCall(call, make, constant);
  if (r.ok()) return r;
  if (r.status().code() == StatusCode::kUnimplemented)
    return Unimplemented(c_.Where(s.at) + ": custom_call @" + target + ": " + r.status().message());
  return c_.Error(s.at, r.status().message());
}

const Function* Reader::FindFunction(const std::string& name) const {
  for (const Function& g : functions_)
    if (g.name == name) return &g;
  return nullptr;
}

StatusOr<std::vector<Instruction*>> Reader::TranslateRunParallel(const Statement& s,
                                                                 std::map<std::string, Instruction*>& values, int depth) {
  auto symbols = [](const std::string& raw) {
    std::vector<std::string> names;
    for (size_t at = raw.find('@'); at != std::string::npos; at = raw.find('@', at + 1)) {
      size_t end = at + 1;
      while (end < raw.size() && (std::isalnum(static_cast<unsigned char>(raw[end])) || raw[end] == '_' || raw[end] == '.')) ++end;
      names.push_back(raw.substr(at, end - at));
    }
    return names;
  };
  auto programs = s.attributes.find("programs");
  const std::vector<std::string> names = programs == s.attributes.end() ? std::vector<std::string>{} : symbols(programs->second);
  if (names.size() > 1) return TranslateParallelPrograms(s, names, values, depth);
  if (names.empty()) return c_.Error(s.at, "interpreter.run_parallel needs programs=[[@f, ...], ...]");
  const Function* program = FindFunction(names[0]);
  if (!program) return c_.Error(s.at, "run_parallel of undefined function " + names[0]);
  if (auto infeed = s.attributes.find("infeed"); infeed != s.attributes.end()) {
    // Each infeed function is evaluated on its own (they are constants in practice).
    for (const std::string& name : symbols(infeed->second)) {
      const Function* f = FindFunction(name);
      if (!f) return c_.Error(s.at, "infeed of undefined function " + name);
      if (!f->arguments.empty()) return c_.Error(s.at, "infeed function " + name + " takes arguments");
      auto comp = std::make_unique<Computation>(name.substr(1));
      Computation* outside = current_;
      current_ = comp.get();
      const size_t here = c_.position();
      StatusOr<std::vector<Instruction*>> r = Translate(*f, {}, depth + 1);
      c_.set_position(here);
      if (r.ok() && r->size() == 1) comp->set_root((*r)[0]);
      current_ = outside;
      VKXLA_RETURN_IF_ERROR(r.status());
      if (r->size() != 1) return c_.Error(s.at, "infeed function " + name + " must return one value");
      Module m(name.substr(1));
      m.set_entry(m.AddComputation(std::move(comp)));
      VKXLA_RETURN_IF_ERROR(VerifyModule(m));
      VKXLA_ASSIGN_OR_RETURN(Literal value, EvaluateModule(m, {}));
      infeed_.push_back(std::move(value));
    }
  }
  std::vector<Instruction*> args;
  for (const std::string& o : s.operands) {
    VKXLA_ASSIGN_OR_RETURN(Instruction * v, Value(s, o, values));
    args.push_back(v);
  }
  if (args.size() != program->arguments.size())
    return c_.Error(s.at, names[0] + " takes " + std::to_string(program->arguments.size()) + " arguments");
  const size_t here = c_.position();
  VKXLA_ASSIGN_OR_RETURN(std::vector<Instruction*> r, Translate(*program, args, depth + 1));
  c_.set_position(here);
  return r;
}

StatusOr<std::vector<Instruction*>> Reader::TranslateParallelPrograms(const Statement& s, const std::vector<std::string>& names,
                                                                    std::map<std::string, Instruction*>& values, int depth) {
  if (depth != 0 || current_ != entry_.get())
    return Unimplemented(c_.Where(s.at) + ": interpreter.run_parallel of several programs inside a called function");
  if (parallel_) return Unimplemented(c_.Where(s.at) + ": a second interpreter.run_parallel of several programs in one entry");
  // programs=[[@r0p0, @r0p1], [@r1p0, @r1p1]]: a list per replica of its
  // partitions, all of one length.
  const std::string& raw = s.attributes.at("programs");
  std::vector<int64_t> per_replica;
  int64_t nesting = 0;
  for (char ch : raw) {
    if (ch == '[') {
      if (++nesting == 2) per_replica.push_back(0);
    } else if (ch == ']') {
      --nesting;
    } else if (ch == '@' && nesting == 2) {
      ++per_replica.back();
    }
  }
  const int64_t count = static_cast<int64_t>(names.size());
  const int64_t replicas = static_cast<int64_t>(per_replica.size());
  if (replicas == 0 || per_replica[0] * replicas != count ||
      std::any_of(per_replica.begin(), per_replica.end(), [&](int64_t n) { return n != per_replica[0]; }))
    return c_.Error(s.at, "interpreter.run_parallel's programs must be a list of replicas with the same number of partitions each");
  const ProcessGrid grid{replicas, count / replicas};
  if (Status ok = CheckProcessGrid(grid); !ok.ok()) return c_.Error(s.at, ok.message());
  // Each process's module is read from the text again: bound that work.
  constexpr int64_t kMaxRunParallelProcesses = 64;
  if (count > kMaxRunParallelProcesses)
    return Unimplemented(c_.Where(s.at) + ": interpreter.run_parallel of " + std::to_string(count) + " programs (at most " +
                         std::to_string(kMaxRunParallelProcesses) + ")");
  parallel_ = grid;
  std::vector<size_t> first_argument;
  size_t arguments = 0;
  for (const std::string& name : names) {
    const Function* f = FindFunction(name);
    if (!f) return c_.Error(s.at, "run_parallel of undefined function " + name);
    first_argument.push_back(arguments);
    arguments += f->arguments.size();
  }
  if (arguments != s.operands.size())
    return c_.Error(s.at, "interpreter.run_parallel's programs take " + std::to_string(arguments) + " arguments, it passes " +
                              std::to_string(s.operands.size()));
  if (process_) {
    if (*process_ < 0 || *process_ >= count) return Internal("run_parallel process out of range");
    const Function* f = FindFunction(names[*process_]);
    std::vector<Instruction*> args;
    for (size_t i = 0; i < f->arguments.size(); ++i) {
      VKXLA_ASSIGN_OR_RETURN(Instruction * v, Value(s, s.operands[first_argument[*process_] + i], values));
      args.push_back(v);
    }
    VKXLA_ASSIGN_OR_RETURN(process_results_, Translate(*f, args, depth + 1));
    stopped_ = true;
    return Aborted("the process's program is read");  // Read() takes it from here
  }
  // The main program: the processes' array results come in as parameters.
  std::vector<Instruction*> results;
  int64_t next = static_cast<int64_t>(entry_->parameters().size());
  for (const Shape& t : s.result_types) {
    if (t.IsToken()) {
      results.push_back(Make(Opcode::kAfterAll, Shape::Token(), {}, s.at));
      continue;
    }
    auto p = std::make_unique<Instruction>();
    p->opcode = Opcode::kParameter;
    p->parameter_number = next++;
    p->shape = t;
    results.push_back(Add(std::move(p), s.at));
  }
  return results;
}

StatusOr<std::vector<Instruction*>> Reader::LowerCollective(const Statement& s, Opcode opcode,
                                                            std::map<std::string, Instruction*>& values) {
  std::vector<Instruction*> operands;
  for (const std::string& o : s.operands) {
    VKXLA_ASSIGN_OR_RETURN(Instruction * v, Value(s, o, values));
    operands.push_back(v);
  }
  if (s.result_types.empty() || s.result_types.size() > kMaxResults) return c_.Error(s.at, s.name + " needs result types");
  StatusOr<CollectiveAttributes> a = TranslateCollectiveAttributes(opcode, s.attributes);
  if (!a.ok()) return c_.Error(s.at, s.name + ": " + a.status().message());
  auto inst = std::make_unique<Instruction>();
  inst->opcode = opcode;
  inst->operands = std::move(operands);
  inst->shape = s.result_types.size() == 1 ? s.result_types[0] : Shape::Tuple(s.result_types);
  inst->dimensions = a->dimensions;
  inst->other_attributes = a->attributes;
  // collective_reduce: an all-reduce whose value only the group's first
  // process keeps (the others get zeros).
  if (s.name == "stablehlo.collective_reduce") inst->other_attributes.emplace_back("vkxla_reduce_to_root", "true");
  if (opcode == Opcode::kAllReduce || opcode == Opcode::kReduceScatter) {
    if (s.regions.size() != 1) return c_.Error(s.at, s.name + " needs its reduction region");
    VKXLA_ASSIGN_OR_RETURN(Computation * f, TranslateRegion(s, 0, 0));
    inst->called_computations.emplace_back("to_apply", f);
  }
  const Shape shape = inst->shape;
  Instruction* r = Add(std::move(inst), s.at);
  if (!shape.IsTuple()) return std::vector<Instruction*>{r};
  return Elements(r, shape.tuple_shapes(), s.at);
}

StatusOr<std::vector<Instruction*>> Reader::LowerHostOp(const Statement& s, std::map<std::string, Instruction*>& values) {
  std::vector<Instruction*> operands;
  for (const std::string& o : s.operands) {
    VKXLA_ASSIGN_OR_RETURN(Instruction * v, Value(s, o, values));
    operands.push_back(v);
  }
  if (s.name == "stablehlo.infeed") {
    // (data..., token) in StableHLO; ((data...), token) in HLO.
    if (operands.size() != 1 || s.result_types.size() < 2 || !s.result_types.back().IsToken())
      return c_.Error(s.at, "stablehlo.infeed takes a token and gives its values and a token");
    std::vector<Shape> data(s.result_types.begin(), s.result_types.end() - 1);
    const Shape data_shape = data.size() == 1 ? data[0] : Shape::Tuple(data);
    Instruction* in = Make(Opcode::kInfeed, Shape::Tuple({data_shape, Shape::Token()}), operands, s.at);
    std::vector<Instruction*> parts = Elements(in, {data_shape, Shape::Token()}, s.at);
    std::vector<Instruction*> results = data.size() == 1 ? std::vector<Instruction*>{parts[0]} : Elements(parts[0], data, s.at);
    results.push_back(parts[1]);
    return results;
  }
  if (s.name == "stablehlo.send" || s.name == "stablehlo.recv") {
    // HLO's send/send-done and recv/recv-done pairs on channel_id.
    auto handle = s.attributes.find("channel_handle");
    std::optional<int64_t> channel;
    if (handle != s.attributes.end()) {
      const size_t at = handle->second.find("handle");
      if (at != std::string::npos) {
        const std::vector<int64_t> v = Integers(handle->second.substr(at + 6, handle->second.find_first_of(",>", at) - at - 6));
        if (v.size() == 1) channel = v[0];
      }
    }
    if (!channel) return c_.Error(s.at, s.name + " needs channel_handle = #stablehlo.channel_handle<handle = N, type = T>");
    auto with_channel = [&](Instruction* i) {
      i->other_attributes.emplace_back("channel_id", std::to_string(*channel));
      auto host = s.attributes.find("is_host_transfer");
      i->other_attributes.emplace_back("is_host_transfer", host != s.attributes.end() && host->second.find("true") != std::string::npos
                                                               ? "true" : "false");
      return i;
    };
    const Shape context = Shape::Scalar(ElementType::kU32);
    if (s.name == "stablehlo.send") {
      if (operands.size() != 2 || !operands.back()->shape.IsToken() || !operands[0]->shape.IsArray())
        return Unimplemented(c_.Where(s.at) + ": stablehlo.send of " + std::to_string(operands.size() - 1) +
                             " values: one array and a token are supported");
      Instruction* send = with_channel(Make(Opcode::kSend, Shape::Tuple({operands[0]->shape, context, Shape::Token()}), operands, s.at));
      return std::vector<Instruction*>{with_channel(Make(Opcode::kSendDone, Shape::Token(), {send}, s.at))};
    }
    if (operands.size() != 1 || s.result_types.size() != 2 || !s.result_types[0].IsArray() || !s.result_types[1].IsToken())
      return Unimplemented(c_.Where(s.at) + ": stablehlo.recv of " + std::to_string(s.result_types.size()) +
                           " results: one array and a token are supported");
    const Shape& data = s.result_types[0];
    Instruction* recv = with_channel(Make(Opcode::kRecv, Shape::Tuple({data, context, Shape::Token()}), operands, s.at));
    Instruction* done = with_channel(Make(Opcode::kRecvDone, Shape::Tuple({data, Shape::Token()}), {recv}, s.at));
    return Elements(done, {data, Shape::Token()}, s.at);
  }
  if (s.name == "stablehlo.outfeed") {
    if (operands.size() < 2 || !operands.back()->shape.IsToken())
      return c_.Error(s.at, "stablehlo.outfeed takes values and a token");
    Instruction* data = TupleOf(std::vector<Instruction*>(operands.begin(), operands.end() - 1), s.at);
    return std::vector<Instruction*>{Make(Opcode::kOutfeed, Shape::Token(), {data, operands.back()}, s.at)};
  }
  const std::string target = CustomCallTargetOf(s);
  auto attr = [&](const char* key) -> std::string {
    auto it = s.attributes.find(key);
    return it == s.attributes.end() ? "" : it->second;
  };
  if (target.empty()) return c_.Error(s.at, "stablehlo.custom_call needs a target");
  auto inst = std::make_unique<Instruction>();
  inst->opcode = Opcode::kCustomCall;
  inst->shape = s.result_types.size() == 1 ? s.result_types[0] : Shape::Tuple(s.result_types);
  inst->operands = operands;
  inst->other_attributes.emplace_back("custom_call_target", "\"" + target + "\"");
  if (!attr("backend_config").empty()) inst->other_attributes.emplace_back("backend_config", attr("backend_config"));
  if (!attr("api_version").empty()) {
    const std::vector<int64_t> v = Integers(attr("api_version"));
    if (!v.empty() && v[0] >= 0 && v[0] < kApiVersions)
      inst->other_attributes.emplace_back("api_version", std::string(ApiVersionName(static_cast<int>(v[0]))));
  }
  // What a manual region's boundaries say of shards (frontends/manual_regions.h).
  if (target == "Sharding" || IsManualRegionBoundary(*inst)) {
    if (const std::string sharding = attr("mhlo.sharding"); sharding.size() >= 2 && sharding.front() == '"')
      inst->other_attributes.emplace_back("sharding", UnescapeAttributeString(sharding.substr(1, sharding.size() - 2)));
    std::string frontend = attr("mhlo.frontend_attributes");
    if (frontend.empty()) {  // attributes the call of the region's body held
      for (const Instruction* o : operands)
        if (auto held = sdy_body_attributes_.find(o); held != sdy_body_attributes_.end()) frontend = held->second;
    }
    if (!frontend.empty()) inst->other_attributes.emplace_back("frontend_attributes", frontend);
  }
  Instruction* call = Add(std::move(inst), s.at);
  if (s.result_types.size() == 1) return std::vector<Instruction*>{call};
  return Elements(call, s.result_types, s.at);
}

StatusOr<Reader::ControlRegion> Reader::TranslateControlRegion(const Statement& s, size_t region,
                                                               const std::vector<Shape>& arguments,
                                                               std::map<std::string, Instruction*>& outer,
                                                               std::vector<Instruction*>& captures, int depth) {
  if (region_depth_ >= kMaxRegionDepth)
    return c_.Error(s.regions[region], "regions nest deeper than " + std::to_string(kMaxRegionDepth) + " levels");
  const size_t saved = c_.position();
  const size_t open = s.regions[region];
  VKXLA_ASSIGN_OR_RETURN(const size_t end, EnterRegion(open));
  auto comp = std::make_unique<Computation>("region" + std::to_string(regions_.size()));
  ControlRegion r;
  r.computation = comp.get();
  Computation* outside = current_;
  current_ = r.computation;
  auto p = std::make_unique<Instruction>();
  p->opcode = Opcode::kParameter;
  p->parameter_number = 0;
  p->shape = Shape::Tuple(arguments);  // the captures are added once all are known
  r.parameter = Add(std::move(p), open);
  std::map<std::string, Instruction*> values;
  std::vector<std::string> names = s.region_arguments;
  if (c_.Consume("^")) {  // ^bb0(%arg0: tensor<f32>, ...):
    names.clear();
    c_.Identifier();
    VKXLA_RETURN_IF_ERROR(c_.Expect("("));
    if (!c_.Consume(")")) {
      do {
        std::string name = c_.ValueName();
        if (name.empty()) return c_.Error("expected a block argument %name");
        VKXLA_RETURN_IF_ERROR(c_.Expect(":"));
        VKXLA_RETURN_IF_ERROR(ParseMlirType(c_, 0, nullptr, true).status());
        names.push_back(name);
      } while (c_.Consume(","));
      VKXLA_RETURN_IF_ERROR(c_.Expect(")"));
    }
    VKXLA_RETURN_IF_ERROR(c_.Expect(":"));
  }
  if (names.size() != arguments.size())
    return c_.Error(open, "the region of " + s.name + " takes " + std::to_string(arguments.size()) + " arguments, " +
                              std::to_string(names.size()) + " are named");
  for (size_t i = 0; i < names.size(); ++i) {
    Instruction* element = Make(Opcode::kGetTupleElement, arguments[i], {r.parameter}, open);
    element->tuple_index = static_cast<int64_t>(i);
    values[names[i]] = element;
  }
  frames_.push_back({&values, &outer, r.computation, r.parameter, &captures, static_cast<int64_t>(arguments.size())});
  ++region_depth_;
  StatusOr<std::vector<Instruction*>> returned = TranslateBody(c_.position(), end, values, depth + 1);
  --region_depth_;
  frames_.pop_back();
  current_ = outside;
  c_.set_position(saved);
  regions_.push_back(std::move(comp));  // after the regions inside it, as HLO text orders them
  VKXLA_RETURN_IF_ERROR(returned.status());
  r.returned = std::move(*returned);
  return r;
}

StatusOr<std::vector<Instruction*>> Reader::TranslateControl(const Statement& s, std::map<std::string, Instruction*>& values,
                                                             int depth) {
  std::vector<Instruction*> operands;
  for (const std::string& o : s.operands) {
    VKXLA_ASSIGN_OR_RETURN(Instruction * v, Value(s, o, values));
    operands.push_back(v);
  }
  // The finished parameter type of a region: its arguments, then what it
  // (or, for a while, either region) captured.
  auto with_captures = [](std::vector<Shape> shapes, const std::vector<Instruction*>& captures) {
    for (const Instruction* c : captures) shapes.push_back(c->shape);
    return Shape::Tuple(std::move(shapes));
  };
  auto root_of = [&](ControlRegion& r, std::vector<Instruction*> leaves) {
    Computation* outside = current_;
    current_ = r.computation;
    if (leaves.size() == 1) {
      r.computation->set_root(leaves[0]);
    } else {
      std::vector<Shape> shapes;
      for (Instruction* l : leaves) shapes.push_back(l->shape);
      r.computation->set_root(Make(Opcode::kTuple, Shape::Tuple(shapes), leaves, s.at));
    }
    current_ = outside;
  };
  if (s.name == "stablehlo.while") {
    if (s.regions.size() != 2) return c_.Error(s.at, "stablehlo.while needs a cond and a body region");
    std::vector<Shape> state;
    for (Instruction* o : operands) state.push_back(o->shape);
    std::vector<Instruction*> captures;
    VKXLA_ASSIGN_OR_RETURN(ControlRegion cond, TranslateControlRegion(s, 0, state, values, captures, depth));
    VKXLA_ASSIGN_OR_RETURN(ControlRegion body, TranslateControlRegion(s, 1, state, values, captures, depth));
    if (cond.returned.size() != 1) return c_.Error(s.regions[0], "the cond region of stablehlo.while returns one i1");
    if (body.returned.size() != state.size())
      return c_.Error(s.regions[1], "the body of stablehlo.while returns " + std::to_string(body.returned.size()) +
                                        " values for " + std::to_string(state.size()) + " loop-carried values");
    const Shape full = with_captures(state, captures);
    cond.parameter->shape = body.parameter->shape = full;
    root_of(cond, {cond.returned[0]});
    std::vector<Instruction*> next = body.returned;
    for (size_t j = 0; j < captures.size(); ++j) {  // captured values ride along unchanged
      Computation* outside = current_;
      current_ = body.computation;
      Instruction* same = Make(Opcode::kGetTupleElement, captures[j]->shape, {body.parameter}, s.at);
      same->tuple_index = static_cast<int64_t>(state.size() + j);
      current_ = outside;
      next.push_back(same);
    }
    Computation* outside = current_;
    current_ = body.computation;
    body.computation->set_root(Make(Opcode::kTuple, full, next, s.at));
    current_ = outside;
    std::vector<Instruction*> init = operands;
    init.insert(init.end(), captures.begin(), captures.end());
    Instruction* tuple = Make(Opcode::kTuple, full, init, s.at);
    auto w = std::make_unique<Instruction>();
    w->opcode = Opcode::kWhile;
    w->shape = full;
    w->operands = {tuple};
    w->called_computations = {{"condition", cond.computation}, {"body", body.computation}};
    Instruction* loop = Add(std::move(w), s.at);
    return Elements(loop, state, s.at);
  }
  // if (a pred, true branch first) and case (an i32 index).
  if (operands.size() != 1) return c_.Error(s.at, s.name + " takes one operand");
  if (s.regions.empty()) return c_.Error(s.at, s.name + " needs at least one branch");
  auto c = std::make_unique<Instruction>();
  c->opcode = Opcode::kConditional;
  c->operands = {operands[0]};
  std::vector<Shape> result_shapes;
  for (size_t b = 0; b < s.regions.size(); ++b) {
    std::vector<Instruction*> captures;
    VKXLA_ASSIGN_OR_RETURN(ControlRegion branch, TranslateControlRegion(s, b, {}, values, captures, depth));
    branch.parameter->shape = with_captures({}, captures);
    if (branch.returned.empty()) return c_.Error(s.regions[b], "a branch of " + s.name + " returns nothing");
    root_of(branch, branch.returned);
    if (b == 0)
      for (Instruction* r : branch.returned) result_shapes.push_back(r->shape);
    c->operands.push_back(Make(Opcode::kTuple, branch.parameter->shape, captures, s.at));
    const std::string key = s.name == "stablehlo.case" ? "branch_computations" : b == 0 ? "true_computation" : "false_computation";
    c->called_computations.emplace_back(key, branch.computation);
  }
  c->shape = result_shapes.size() == 1 ? result_shapes[0] : Shape::Tuple(result_shapes);
  Instruction* cond = Add(std::move(c), s.at);
  if (result_shapes.size() == 1) return std::vector<Instruction*>{cond};
  return Elements(cond, result_shapes, s.at);
}

StatusOr<std::vector<Instruction*>> Reader::TranslateBody(size_t begin, size_t end, std::map<std::string, Instruction*>& values,
                                                          int depth) {
  const size_t saved = c_.position();
  c_.set_position(begin);
  const size_t body_end = end;
  std::vector<Instruction*> returned;
  while (c_.position() < body_end && !c_.AtEnd()) {
    VKXLA_RETURN_IF_ERROR(unrefined_);  // the statement before left a dimension open
    VKXLA_RETURN_IF_ERROR(FlushQuantized(values));  // the results of the op before, if it ran on quantized values
    VKXLA_ASSIGN_OR_RETURN(Statement s, ParseStatement());
    if (s.name == "stablehlo.custom_call" && s.callee == "@shape_assertion") {
      VKXLA_RETURN_IF_ERROR(ShapeAssertion(s, values));
      continue;
    }
    if (const std::string target = s.name == "stablehlo.custom_call" ? CustomCallTargetOf(s) : "";
        IsExpandedCustomCall(target)) {
      const size_t here = c_.position();
      VKXLA_ASSIGN_OR_RETURN(std::vector<Instruction*> r, LowerExpandedCall(s, target, values, depth));
      c_.set_position(here);
      VKXLA_RETURN_IF_ERROR(BindResults(s, r, values));
      continue;
    }
    if (IsStaticFormOp(s.name)) VKXLA_RETURN_IF_ERROR(StaticForm(s, values));
    const auto quantized = [](const std::optional<QuantizedType>& q) { return q.has_value(); };
    if (std::any_of(s.operand_quantized.begin(), s.operand_quantized.end(), quantized) ||
        std::any_of(s.result_quantized.begin(), s.result_quantized.end(), quantized) || s.name == "stablehlo.uniform_quantize" ||
        s.name == "stablehlo.uniform_dequantize") {
      std::vector<Instruction*> r;
      VKXLA_ASSIGN_OR_RETURN(const bool lowered, LowerQuantized(s, values, r));
      if (lowered) {
        VKXLA_RETURN_IF_ERROR(BindResults(s, r, values));
        continue;
      }
    }
    if (s.name == "func.return") {
      for (const std::string& o : s.operands) {
        VKXLA_ASSIGN_OR_RETURN(Instruction * v, Value(s, o, values));
        returned.push_back(v);
      }
      break;
    }
    if (s.name == "interpreter.print") {
      // The interpreter's debugging output: nothing to compute; its operand must exist.
      for (const std::string& o : s.operands) VKXLA_RETURN_IF_ERROR(Value(s, o, values).status());
      continue;
    }
    if (s.name == "interpreter.run_parallel") {
      // The interpreter suite's harness: one program on one replica runs
      // in line like a call; its infeed functions fill the infeed queue.
      VKXLA_ASSIGN_OR_RETURN(std::vector<Instruction*> r, TranslateRunParallel(s, values, depth));
      for (size_t i = 0; i < s.results.size() && i < r.size(); ++i) values[s.results[i]] = r[i];
      continue;
    }
    if (s.name == "func.call" || s.name == "stablehlo.composite") {
      // A composite runs its decomposition.
      std::string name = s.callee;
      if (s.name == "stablehlo.composite") {
        auto d = s.attributes.find("decomposition");
        if (d == s.attributes.end()) return c_.Error(s.at, "stablehlo.composite \"" + s.callee + "\" needs a decomposition");
        name = d->second;
        while (!name.empty() && std::isspace(static_cast<unsigned char>(name.back()))) name.pop_back();
      }
      const Function* callee = nullptr;
      for (const Function& g : functions_)
        if (g.name == name) callee = &g;
      if (!callee && declarations_.count(name))
        return c_.Error(s.at, "call to " + name + ", a declaration without a body: nothing here defines what it computes");
      if (!callee) return c_.Error(s.at, "call to undefined function " + name);
      std::vector<Instruction*> call_args;
      for (const std::string& o : s.operands) {
        VKXLA_ASSIGN_OR_RETURN(Instruction * v, Value(s, o, values));
        call_args.push_back(v);
      }
      if (call_args.size() != callee->arguments.size())
        return c_.Error(s.at, s.callee + " takes " + std::to_string(callee->arguments.size()) + " arguments");
      const size_t here = c_.position();
      VKXLA_ASSIGN_OR_RETURN(std::vector<Instruction*> r, Translate(*callee, call_args, depth + 1));
      c_.set_position(here);
      if (name.find("xla.sdy.manual_computation_body") != std::string::npos) KeepManualBodyAttributes(s, call_args, r);
      for (size_t i = 0; i < s.results.size() && i < r.size(); ++i) values[s.results[i]] = r[i];
      continue;
    }
    if (s.name == "sdy.manual_computation") {
      const size_t here = c_.position();
      VKXLA_ASSIGN_OR_RETURN(std::vector<Instruction*> r, TranslateManualComputation(s, values, depth));
      c_.set_position(here);
      VKXLA_RETURN_IF_ERROR(BindResults(s, r, values));
      continue;
    }
    if (s.name == "stablehlo.while" || s.name == "stablehlo.if" || s.name == "stablehlo.case") {
      const size_t here = c_.position();
      VKXLA_ASSIGN_OR_RETURN(std::vector<Instruction*> r, TranslateControl(s, values, depth));
      c_.set_position(here);
      VKXLA_RETURN_IF_ERROR(BindResults(s, r, values));
      continue;
    }
    if (std::optional<Opcode> collective = s.name.rfind("stablehlo.", 0) == 0 ? StablehloCollectiveOpcode(s.name.substr(10)) : std::nullopt) {
      const size_t here = c_.position();
      VKXLA_ASSIGN_OR_RETURN(std::vector<Instruction*> r, LowerCollective(s, *collective, values));
      c_.set_position(here);
      VKXLA_RETURN_IF_ERROR(BindResults(s, r, values));
      continue;
    }
    if (s.name == "stablehlo.infeed" || s.name == "stablehlo.outfeed" || s.name == "stablehlo.send" || s.name == "stablehlo.recv" ||
        (s.name == "stablehlo.custom_call" && s.callee.rfind("@check.", 0) != 0)) {
      VKXLA_ASSIGN_OR_RETURN(std::vector<Instruction*> r, LowerHostOp(s, values));
      VKXLA_RETURN_IF_ERROR(BindResults(s, r, values));
      continue;
    }
    if (s.name == "sdy.sharding_constraint" || s.name == "sdy.reshard") {
      // Where a value's shards should lie on the mesh: on one device, the
      // value itself.
      if (s.operands.size() != 1 || s.results.size() != 1) return c_.Error(s.at, s.name + " takes one value and gives one");
      VKXLA_ASSIGN_OR_RETURN(Instruction * v, Value(s, s.operands[0], values));
      values[s.results[0]] = v;
      continue;
    }
    if (s.name == "stablehlo.optimization_barrier" || s.name == "stablehlo.after_all") {
      std::vector<Instruction*> operands;
      for (const std::string& o : s.operands) {
        VKXLA_ASSIGN_OR_RETURN(Instruction * v, Value(s, o, values));
        operands.push_back(v);
      }
      if (s.name == "stablehlo.after_all") {
        if (s.results.size() != 1) return c_.Error(s.at, "stablehlo.after_all has one result");
        values[s.results[0]] = Make(Opcode::kAfterAll, Shape::Token(), operands, s.at);
        continue;
      }
      if (operands.size() != s.results.size() || operands.empty())
        return c_.Error(s.at, "stablehlo.optimization_barrier needs one result per operand");
      Instruction* tuple = TupleOf(operands, s.at);
      Instruction* barrier = Make(Opcode::kOptimizationBarrier, tuple->shape, {tuple}, s.at);
      if (operands.size() == 1) {
        values[s.results[0]] = barrier;
        continue;
      }
      std::vector<Instruction*> elements = Elements(barrier, tuple->shape.tuple_shapes(), s.at);
      for (size_t i = 0; i < elements.size(); ++i) values[s.results[i]] = elements[i];
      continue;
    }
    if (s.name.rfind("check.", 0) == 0 || (s.name == "stablehlo.custom_call" && s.callee.rfind("@check.", 0) == 0)) {
      VKXLA_RETURN_IF_ERROR(AddCheck(s, values));
      continue;
    }
    if (s.name == "chlo.mulhi") {
      if (s.operands.size() != 2 || s.results.size() != 1) return c_.Error(s.at, "chlo.mulhi takes two values and gives one");
      VKXLA_ASSIGN_OR_RETURN(Instruction * lhs, Value(s, s.operands[0], values));
      VKXLA_ASSIGN_OR_RETURN(Instruction * rhs, Value(s, s.operands[1], values));
      StatusOr<Instruction*> hi = LowerMulhi(lhs, rhs, Makers(s.at).first, Makers(s.at).second);
      if (!hi.ok()) return c_.Error(s.at, hi.status().message());
      values[s.results[0]] = *hi;
      continue;
    }
    const bool legacy = s.name.rfind("stablehlo.", 0) == 0 && IsLegacyStablehloOp(s.name.substr(10));
    if (legacy || (s.name.rfind("chlo.", 0) == 0 && IsChloDecomposition(s.name.substr(5)))) {
      std::vector<Instruction*> operands;
      for (const std::string& o : s.operands) {
        VKXLA_ASSIGN_OR_RETURN(Instruction * v, Value(s, o, values));
        operands.push_back(v);
      }
      if (s.result_types.empty() || s.result_types.size() != s.results.size())
        return c_.Error(s.at, s.name + " needs a result type for each result");
      std::vector<Shape> result_types = s.result_types;
      for (Shape& t : result_types)  // open dims of these elementwise-like ops: their first operand's
        if (HasUnknownDims(t) && t.IsArray() && !operands.empty() && operands[0]->shape.IsArray() &&
            operands[0]->shape.rank() == t.rank()) {
          std::vector<int64_t> dims = t.dims();
          for (int64_t d = 0; d < t.rank(); ++d) dims[d] = dims[d] == kUnknownDim ? operands[0]->shape.dim(d) : dims[d];
          t = Shape(t.element_type(), dims);
        }
      const Shape result = result_types.size() == 1 ? result_types[0] : Shape::Tuple(result_types);
      const auto [make, constant] = Makers(s.at);
      StatusOr<Instruction*> r = legacy ? LowerLegacyOp(s.name.substr(10), operands, result, s.attributes, make, constant)
                                        : LowerChlo(s.name.substr(5), operands, result, s.attributes, make, constant);
      if (!r.ok()) {
        if (r.status().code() == StatusCode::kUnimplemented) return Unimplemented(c_.Where(s.at) + ": " + r.status().message());
        return c_.Error(s.at, r.status().message());
      }
      if (s.results.size() == 1) {
        values[s.results[0]] = *r;
      } else {
        std::vector<Instruction*> elements = Elements(*r, result_types, s.at);
        for (size_t i = 0; i < elements.size(); ++i) values[s.results[i]] = elements[i];
      }
      continue;
    }
    if (s.name == "interpreter.probe") {
      // The interpreter writes the value to a file named by probe_id; here
      // it passes through, and expect_serialized_eq checks it against the
      // reference evaluator.
      if (s.operands.size() != 1 || s.results.size() != 1) return c_.Error(s.at, "interpreter.probe takes one value");
      auto id = s.attributes.find("probe_id");
      if (id == s.attributes.end()) return c_.Error(s.at, "interpreter.probe needs a probe_id");
      VKXLA_ASSIGN_OR_RETURN(Instruction * v, Value(s, s.operands[0], values));
      probes_.insert(id->second);
      values[s.results[0]] = v;
      continue;
    }
    if (s.name == "stablehlo.reduce" || s.name == "stablehlo.reduce_window" || s.name == "stablehlo.sort" ||
        s.name == "stablehlo.map" || s.name == "stablehlo.select_and_scatter" || s.name == "chlo.scan") {
      const size_t here = c_.position();
      VKXLA_ASSIGN_OR_RETURN(std::vector<Instruction*> r, LowerRegionOp(s, values));
      c_.set_position(here);
      VKXLA_RETURN_IF_ERROR(BindResults(s, r, values));
      continue;
    }
    VKXLA_ASSIGN_OR_RETURN(Instruction * inst, Lower(s, values));
    if (s.results.size() == 1) {
      values[s.results[0]] = inst;
    } else {
      std::vector<Instruction*> elements = Elements(inst, s.result_types, s.at);
      for (size_t i = 0; i < elements.size(); ++i) values[s.results[i]] = elements[i];
    }
  }
  VKXLA_RETURN_IF_ERROR(FlushQuantized(values));  // none is left behind for a later body
  VKXLA_RETURN_IF_ERROR(unrefined_);
  c_.set_position(saved);
  return returned;
}

StatusOr<const Function*> Reader::FindEntry() const {
  const Function* entry = nullptr;
  const std::string wanted = entry_name_.empty() ? "@main" : "@" + entry_name_;
  for (const Function& f : functions_)
    if (f.name == wanted) entry = &f;
  if (!entry && declarations_.count(wanted)) return NotFound(wanted + " is a declaration without a body: nothing to run");
  if (!entry && !entry_name_.empty()) return NotFound("no function " + wanted + " in the input");
  return entry ? entry : &functions_.front();
}

StatusOr<std::vector<Shape>> Reader::EntryArgumentTypes() {
  VKXLA_RETURN_IF_ERROR(ScanFunctions());
  VKXLA_ASSIGN_OR_RETURN(const Function* entry, FindEntry());
  std::vector<Shape> types;
  for (const auto& [name, type] : entry->arguments) types.push_back(type);
  return types;
}

StatusOr<Shape> Reader::EntryParameterShape(const Function& entry, size_t i) const {
  const auto& [name, declared] = entry.arguments[i];
  if (!argument_shapes_) {
    if (!HasUnknownDims(declared)) return declared;
    return FailedPrecondition(c_.Where(entry.body_begin) + ": " + entry.name + "'s argument " + name + " is " +
                              ShapeWithUnknownDims(declared) +
                              ": a shape-polymorphic module runs once its arguments' shapes are given (vkxla run takes them "
                              "from --input)");
  }
  if (argument_shapes_->size() != entry.arguments.size())
    return InvalidArgument(entry.name + " takes " + std::to_string(entry.arguments.size()) + " arguments; " +
                           std::to_string(argument_shapes_->size()) + " shapes were given to refine it with");
  StatusOr<Shape> refined = RefinedArgument(declared, (*argument_shapes_)[i]);
  if (!refined.ok())
    return InvalidArgument(c_.Where(entry.body_begin) + ": " + entry.name + "'s argument " + name + " " + refined.status().message());
  return *refined;
}

void Reader::KeepManualBodyAttributes(const Statement& call, const std::vector<Instruction*>& arguments,
                                      const std::vector<Instruction*>& results) {
  auto held = call.attributes.find("mhlo.frontend_attributes");
  if (held == call.attributes.end()) return;
  for (Instruction* a : arguments) {
    Instruction* entry = a->opcode == Opcode::kGetTupleElement && !a->operands.empty() ? a->operands[0] : a;
    if (IsManualRegionBoundary(*entry) && !FindAttribute(*entry, "frontend_attributes"))
      entry->other_attributes.emplace_back("frontend_attributes", held->second);
  }
  for (const Instruction* r : results) sdy_body_attributes_[r] = held->second;
}

StatusOr<std::vector<const Computation*>> Reader::ExpandManualRegionsOf(Computation* c) {
  ManualRegionContext context;
  context.meshes = mesh_text_;
  VKXLA_ASSIGN_OR_RETURN(const auto grid, ModuleProcessGrid(c_.text()));
  context.partitions = grid.second;
  Computation* outer = current_;
  current_ = c;
  StatusOr<std::vector<const Computation*>> consumed = ExpandManualRegions(*c, context, BuildersAt(0));
  current_ = outer;
  return consumed;
}

StatusOr<StablehloProgram> Reader::Read() {
  VKXLA_RETURN_IF_ERROR(ScanFunctions());
  VKXLA_ASSIGN_OR_RETURN(const Function* entry, FindEntry());
  entry_ = std::make_unique<Computation>(entry->name.substr(1));
  current_ = entry_.get();
  std::vector<Instruction*> args;
  for (size_t i = 0; i < entry->arguments.size(); ++i) {
    auto p = std::make_unique<Instruction>();
    p->opcode = Opcode::kParameter;
    p->parameter_number = static_cast<int64_t>(i);
    VKXLA_ASSIGN_OR_RETURN(p->shape, EntryParameterShape(*entry, i));
    args.push_back(Add(std::move(p), entry->body_begin));
  }
  StatusOr<std::vector<Instruction*>> translated = Translate(*entry, args, 0);
  if (process_) {
    if (!stopped_) return translated.ok() ? Internal("no run_parallel of several programs in " + entry->name) : translated.status();
    return ProcessModule();
  }
  VKXLA_ASSIGN_OR_RETURN(std::vector<Instruction*> returned, std::move(translated));
  StablehloProgram program;
  program.function = entry->name.substr(1);
  program.results = static_cast<int>(returned.size());
  std::vector<Instruction*> leaves = returned;
  if (with_checks_) {
    for (StablehloCheck& check : checks_) {
      check.actual += program.results;
      if (check.expected_value >= 0) check.expected_value += program.results;
    }
    leaves.insert(leaves.end(), check_values_.begin(), check_values_.end());
  }
  if (leaves.size() == 1 && !with_checks_) {
    entry_->set_root(leaves[0]);
  } else {
    entry_->set_root(RootTuple(leaves, entry->body_end));
  }
  // Manual regions between boundary custom calls, in the entry and in any
  // region (a shard_map inside a loop).
  std::vector<Computation*> computations = {entry_.get()};
  for (const auto& r : regions_) computations.push_back(r.get());
  std::vector<const Computation*> consumed;
  for (Computation* c : computations) {
    bool bounded = false;
    for (const auto& inst : c->instructions()) bounded = bounded || IsManualRegionBoundary(*inst);
    if (!bounded) continue;
    VKXLA_ASSIGN_OR_RETURN(std::vector<const Computation*> done, ExpandManualRegionsOf(c));
    consumed.insert(consumed.end(), done.begin(), done.end());
  }
  if (!consumed.empty()) {
    std::vector<const Computation*> all = {entry_.get()};
    for (const auto& r : regions_) all.push_back(r.get());
    const std::vector<const Computation*> droppable = DroppableComputations(consumed, all);
    std::erase_if(regions_, [&](const std::unique_ptr<Computation>& r) {
      return std::find(droppable.begin(), droppable.end(), r.get()) != droppable.end();
    });
  }
  program.checks = std::move(checks_);
  program.infeed = std::move(infeed_);
  program.module = TakeModule(program.function);
  VKXLA_ASSIGN_OR_RETURN(const auto grid, ModuleProcessGrid(c_.text()));
  program.module->set_replica_count(grid.first);
  // mhlo.num_partitions of a JAX export says how XLA's SPMD partitioner
  // would split the global program it holds, which runs whole here, one
  // process per replica; only a program whose ops meet across partitions
  // (collectives, partition-id) runs as its partitions.
  bool meets = false;
  for (const auto& c : program.module->computations())
    for (const auto& inst : c->instructions()) meets = meets || IsProcessOpcode(inst->opcode);
  if (meets) program.module->set_num_partitions(grid.second);
  VKXLA_RETURN_IF_ERROR(VerifyModule(*program.module));
  if (parallel_) {
    // Each process's module: the entry up to the run_parallel, then its program.
    program.grid = *parallel_;
    for (int64_t p = 0; p < parallel_->processes(); ++p) {
      Reader reader(c_.text(), false, first_line_, entry_name_, p);
      VKXLA_ASSIGN_OR_RETURN(StablehloProgram process, reader.Read());
      program.processes.push_back(std::move(process.module));
    }
  }
  return program;
}

Instruction* Reader::RootTuple(const std::vector<Instruction*>& leaves, size_t at) {
  auto tuple = std::make_unique<Instruction>();
  tuple->opcode = Opcode::kTuple;
  std::vector<Shape> shapes;
  for (Instruction* l : leaves) {
    tuple->operands.push_back(l);
    shapes.push_back(l->shape);
  }
  tuple->shape = Shape::Tuple(shapes);
  return Add(std::move(tuple), at);
}

std::unique_ptr<Module> Reader::TakeModule(const std::string& name) {
  auto module = std::make_unique<Module>(name);
  for (auto& region : regions_) module->AddComputation(std::move(region));
  module->set_entry(module->AddComputation(std::move(entry_)));
  return module;
}

StatusOr<StablehloProgram> Reader::ProcessModule() {
  // Its root: the program's array results (tokens stay behind).
  std::vector<Instruction*> leaves;
  for (Instruction* r : process_results_)
    if (!r->shape.IsToken()) leaves.push_back(r);
  entry_->set_root(RootTuple(leaves, 0));
  StablehloProgram program;
  program.function = entry_->name() + ".process" + std::to_string(*process_);
  program.results = static_cast<int>(leaves.size());
  program.module = TakeModule(program.function);
  program.module->set_replica_count(parallel_->replicas);
  program.module->set_num_partitions(parallel_->partitions);
  VKXLA_RETURN_IF_ERROR(VerifyModule(*program.module));
  return program;
}

StatusOr<std::vector<StablehloFunctionInfo>> Reader::List() {
  VKXLA_RETURN_IF_ERROR(ScanFunctions());
  std::vector<StablehloFunctionInfo> out;
  for (const Function& f : functions_) out.push_back({f.name.substr(1), f.arguments.size(), f.is_private, f.holds_checks});
  return out;
}

}  // namespace

StatusOr<StablehloProgram> ReadStablehlo(std::string_view text, bool with_checks, int first_line, std::string_view entry,
                                         const std::vector<Shape>* argument_shapes) {
  Reader reader(text, with_checks, first_line, entry, std::nullopt, argument_shapes);
  return reader.Read();
}

StatusOr<std::vector<Shape>> StablehloEntryArgumentTypes(std::string_view text, std::string_view entry) {
  Reader reader(text, false, 1, entry);
  return reader.EntryArgumentTypes();
}

StatusOr<std::vector<StablehloFunctionInfo>> ListStablehloFunctions(std::string_view text, int first_line) {
  Reader reader(text, false, first_line);
  return reader.List();
}

StatusOr<StablehloProgram> LoadStablehloFile(const std::string& path, std::string_view entry,
                                             const std::vector<Shape>* argument_shapes) {
  VKXLA_ASSIGN_OR_RETURN(std::string text, ReadModuleText(path));
  auto program = ReadStablehlo(text, false, 1, entry, argument_shapes);
  if (!program.ok()) return Status(program.status().code(), path + ":" + program.status().message());
  return program;
}

}  // namespace vkxla
