// The scan both the planner's and the device's control-flow tests use:
// the running sum of f32[1000] written as While + DynamicUpdateSlice, one
// element per trip (state: counter, carry, inputs, outputs).
#pragma once

#include <string>

namespace vkxla {

inline std::string WhileDynamicUpdateSliceScan() {
  const std::string state = "(s32[], f32[1], f32[1000], f32[1000])";
  return "HloModule scan1000\n"
         "%cond (p: " + state + ") -> pred[] {\n  %p = " + state + " parameter(0)\n"
         "  %i = s32[] get-tuple-element(%p), index=0\n  %n = s32[] constant(1000)\n"
         "  ROOT %lt = pred[] compare(%i, %n), direction=LT\n}\n"
         "%body (p: " + state + ") -> " + state + " {\n  %p = " + state + " parameter(0)\n"
         "  %i = s32[] get-tuple-element(%p), index=0\n  %c = f32[1] get-tuple-element(%p), index=1\n"
         "  %xs = f32[1000] get-tuple-element(%p), index=2\n  %out = f32[1000] get-tuple-element(%p), index=3\n"
         "  %x = f32[1] dynamic-slice(%xs, %i), dynamic_slice_sizes={1}\n  %c2 = f32[1] add(%c, %x)\n"
         "  %out2 = f32[1000] dynamic-update-slice(%out, %c2, %i)\n  %one = s32[] constant(1)\n  %i2 = s32[] add(%i, %one)\n"
         "  ROOT %t = " + state + " tuple(%i2, %c2, %xs, %out2)\n}\n"
         "ENTRY %e {\n  %xs = f32[1000] parameter(0)\n  %z = s32[] constant(0)\n  %c = f32[1] constant({0})\n"
         "  %zf = f32[] constant(0)\n  %out = f32[1000] broadcast(%zf), dimensions={}\n"
         "  %t = " + state + " tuple(%z, %c, %xs, %out)\n  %w = " + state + " while(%t), condition=%cond, body=%body\n"
         "  ROOT %r = f32[1000] get-tuple-element(%w), index=3\n}\n";
}

}  // namespace vkxla
