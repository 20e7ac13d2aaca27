#include "tools/bench/control_flow_benchmarks.h"

#include <chrono>

#include "frontends/hlo_text.h"
#include "tools/bench/module_timing.h"

namespace vkxla {
namespace {

// (i, x) -> (i + 1, x * 0.999 + 1) while i < bound: two kernels a trip.
// `bound` is a constant (a counted loop) or parameter 1 (read each trip).
std::string CountedLoop(int64_t trips, bool bound_is_parameter) {
  const std::string state = "(s32[], f32[1024])";
  const std::string cond_state = bound_is_parameter ? "(s32[], f32[1024], s32[])" : state;
  std::string text =
      "HloModule loop\n"
      "%cond (p: " + cond_state + ") -> pred[] {\n  %p = " + cond_state + " parameter(0)\n"
      "  %i = s32[] get-tuple-element(%p), index=0\n" +
      (bound_is_parameter ? "  %n = s32[] get-tuple-element(%p), index=2\n"
                          : "  %n = s32[] constant(" + std::to_string(trips) + ")\n") +
      "  ROOT %lt = pred[] compare(%i, %n), direction=LT\n}\n"
      "%body (p: " + cond_state + ") -> " + cond_state + " {\n  %p = " + cond_state + " parameter(0)\n"
      "  %i = s32[] get-tuple-element(%p), index=0\n  %x = f32[1024] get-tuple-element(%p), index=1\n"
      "  %one = s32[] constant(1)\n  %i2 = s32[] add(%i, %one)\n  %a = f32[] constant(0.999)\n"
      "  %ab = f32[1024] broadcast(%a), dimensions={}\n  %b = f32[] constant(1)\n  %bb = f32[1024] broadcast(%b), dimensions={}\n"
      "  %m = f32[1024] multiply(%x, %ab)\n  %x2 = f32[1024] add(%m, %bb)\n" +
      (bound_is_parameter ? "  %n = s32[] get-tuple-element(%p), index=2\n  ROOT %t = " + cond_state + " tuple(%i2, %x2, %n)\n"
                          : "  ROOT %t = " + state + " tuple(%i2, %x2)\n") +
      "}\nENTRY %e {\n  %x = f32[1024] parameter(0)\n" + (bound_is_parameter ? "  %n = s32[] parameter(1)\n" : "") +
      "  %z = s32[] constant(0)\n  %t = " + cond_state + " tuple(%z, %x" + (bound_is_parameter ? ", %n" : "") + ")\n"
      "  %w = " + cond_state + " while(%t), condition=%cond, body=%body\n"
      "  ROOT %r = f32[1024] get-tuple-element(%w), index=1\n}\n";
  return text;
}

// One trip's work as a module of its own: its dispatches are the body's.
const char* kBodyOnce =
    "HloModule body\nENTRY %e {\n  %i = s32[] parameter(0)\n  %x = f32[1024] parameter(1)\n  %one = s32[] constant(1)\n"
    "  %i2 = s32[] add(%i, %one)\n  %a = f32[] constant(0.999)\n  %ab = f32[1024] broadcast(%a), dimensions={}\n"
    "  %b = f32[] constant(1)\n  %bb = f32[1024] broadcast(%b), dimensions={}\n  %m = f32[1024] multiply(%x, %ab)\n"
    "  %x2 = f32[1024] add(%m, %bb)\n  ROOT %t = (s32[], f32[1024]) tuple(%i2, %x2)\n}\n";

// The running sum of 1,000 values, one element per trip, written back with
// dynamic-update-slice (how a scan looks once lowered to a loop).
const char* kWhileScan =
    "HloModule while_scan\n"
    "%cond (p: (s32[], f32[1], f32[1000], f32[1000])) -> pred[] {\n  %p = (s32[], f32[1], f32[1000], f32[1000]) parameter(0)\n"
    "  %i = s32[] get-tuple-element(%p), index=0\n  %n = s32[] constant(1000)\n"
    "  ROOT %lt = pred[] compare(%i, %n), direction=LT\n}\n"
    "%body (p: (s32[], f32[1], f32[1000], f32[1000])) -> (s32[], f32[1], f32[1000], f32[1000]) {\n"
    "  %p = (s32[], f32[1], f32[1000], f32[1000]) parameter(0)\n"
    "  %i = s32[] get-tuple-element(%p), index=0\n  %c = f32[1] get-tuple-element(%p), index=1\n"
    "  %xs = f32[1000] get-tuple-element(%p), index=2\n  %out = f32[1000] get-tuple-element(%p), index=3\n"
    "  %x = f32[1] dynamic-slice(%xs, %i), dynamic_slice_sizes={1}\n  %c2 = f32[1] add(%c, %x)\n"
    "  %out2 = f32[1000] dynamic-update-slice(%out, %c2, %i)\n  %one = s32[] constant(1)\n  %i2 = s32[] add(%i, %one)\n"
    "  ROOT %t = (s32[], f32[1], f32[1000], f32[1000]) tuple(%i2, %c2, %xs, %out2)\n}\n"
    "ENTRY %e {\n  %xs = f32[1000] parameter(0)\n  %z = s32[] constant(0)\n  %c = f32[1] constant({0})\n"
    "  %zf = f32[] constant(0)\n  %out = f32[1000] broadcast(%zf), dimensions={}\n"
    "  %t = (s32[], f32[1], f32[1000], f32[1000]) tuple(%z, %c, %xs, %out)\n"
    "  %w = (s32[], f32[1], f32[1000], f32[1000]) while(%t), condition=%cond, body=%body\n"
    "  ROOT %r = f32[1000] get-tuple-element(%w), index=3\n}\n";

const char* kScanOp =
    "HloModule scan\n%f (x: f32[], c: f32[]) -> (f32[], f32[]) {\n  %x = f32[] parameter(0)\n  %c = f32[] parameter(1)\n"
    "  %s = f32[] add(%c, %x)\n  ROOT %t = (f32[], f32[]) tuple(%s, %s)\n}\n"
    "ENTRY %e {\n  %xs = f32[1000] parameter(0)\n  %z = f32[] constant(0)\n"
    "  %s = (f32[1000], f32[]) scan(%xs, %z), scan_dimension=0, is_reverse=false, is_associative=false, to_apply=%f\n"
    "  ROOT %r = f32[1000] get-tuple-element(%s), index=0\n}\n";

// The best host wall time of `runs` whole runs (control flow included).
StatusOr<double> TimeRuns(Device& device, const std::string& text, const std::vector<Literal>& args, int runs) {
  VKXLA_ASSIGN_OR_RETURN(std::unique_ptr<Module> m, ParseAndVerifyHlo(text));
  VKXLA_ASSIGN_OR_RETURN(std::unique_ptr<Executable> exe, Executable::Compile(*m, device));
  return BestWallSeconds(runs, [&] { return exe->Run(args).status(); });
}

}  // namespace

Status RunControlFlowBenchmarks(Device& device, BenchReport& report) {
  constexpr int64_t kTrips = 10000;
  const Literal x = RandomBenchLiteral(Shape(ElementType::kF32, {1024}), 21);
  VKXLA_ASSIGN_OR_RETURN(ModuleTiming body,
                   TimeModuleKernels(device, kBodyOnce, {Literal::ScalarOf(Scalar::Int(ElementType::kS32, 0)), x}, 7, 20));
  VKXLA_ASSIGN_OR_RETURN(double counted, TimeRuns(device, CountedLoop(kTrips, false), {x}, 3));
  const Literal bound = Literal::ScalarOf(Scalar::Int(ElementType::kS32, 1000));
  VKXLA_ASSIGN_OR_RETURN(double read_back, TimeRuns(device, CountedLoop(0, true), {x, bound}, 3));
  const double per_trip = counted / kTrips, per_read_back_trip = read_back / 1000;
  report.rows.push_back({"counted While, 10,000 trips of a 2-kernel body (f32[1024])", Format("%.2f us/trip", per_trip * 1e6),
                         "one run of the body's dispatches", body.kernels.seconds / per_trip, 0.5,
                         Format("body's dispatches alone %.2f us", body.kernels.seconds * 1e6) +
                             Format("; with the trip count known only to the device (gated trips, one read per submission) %.1f us/trip",
                                    per_read_back_trip * 1e6)});
  const Literal xs = RandomBenchLiteral(Shape(ElementType::kF32, {1000}), 22);
  VKXLA_ASSIGN_OR_RETURN(double while_scan, TimeRuns(device, kWhileScan, {xs}, 3));
  VKXLA_ASSIGN_OR_RETURN(double scan_op, TimeRuns(device, kScanOp, {xs}, 5));
  report.rows.push_back({"1,000-step While + DynamicUpdateSlice scan (f32)", Format("%.2f ms", while_scan * 1e3),
                         "the same sum as one Scan op", scan_op / while_scan, 0,
                         Format("Scan op %.3f ms (whole runs, host wall time)", scan_op * 1e3)});
  return OkStatus();
}

}  // namespace vkxla
