// Manual regions between boundary custom calls (frontends/manual_regions.h):
// jax.shard_map as GSPMD exported it (SPMDFullToShardShape ...
// SPMDShardToFullShape with mhlo.sharding tile assignments) and as Shardy's
// round trip through HLO writes it (xla.sdy.GlobalToLocalShape, a call of
// the body, xla.sdy.LocalToGlobalShape). Expected values are worked out
// here from the inputs; the reference evaluator runs the same expansion,
// so it checks the device, not the semantics.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "frontends/hlo_text.h"
#include "tests/stablehlo_test_util.h"

namespace vkxla {
namespace {

class ManualRegions : public ::testing::Test {
 protected:
  void TearDown() override { ExpectNoValidationMessages(); }
};

std::vector<double> Iota(int n) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<size_t>(i)] = i;
  return v;
}

// JAX's export of 2023-03 (jax export back-compat data, tpu_Sharding
// "gspmd"): the body written in line, a ppermute swapping two rows.
TEST_F(ManualRegions, GspmdRegionInLine) {
  const std::string text = R"(module @jit_wrapped {
  func.func public @main(%arg0: tensor<2x4xf32> {jax.arg_info = "args[0]", mhlo.sharding = "{replicated}"}) -> (tensor<2x4xf32> {jax.result_info = ""}) {
    %0 = call @wrapped(%arg0) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    return %0 : tensor<2x4xf32>
  }
  func.func private @wrapped(%arg0: tensor<2x4xf32>) -> tensor<2x4xf32> {
    %0 = stablehlo.custom_call @Sharding(%arg0) {mhlo.sharding = "{devices=[2,1]0,1}"} : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %1 = stablehlo.custom_call @Sharding(%0) {mhlo.sharding = "{devices=[2,1]0,1}"} : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %2 = stablehlo.custom_call @SPMDFullToShardShape(%1) {mhlo.sharding = "{manual}"} : (tensor<2x4xf32>) -> tensor<1x4xf32>
    %3 = "stablehlo.collective_permute"(%2) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>} : (tensor<1x4xf32>) -> tensor<1x4xf32>
    %4 = stablehlo.custom_call @Sharding(%3) {mhlo.sharding = "{manual}"} : (tensor<1x4xf32>) -> tensor<1x4xf32>
    %5 = stablehlo.custom_call @SPMDShardToFullShape(%4) {mhlo.sharding = "{devices=[2,1]0,1}"} : (tensor<1x4xf32>) -> tensor<2x4xf32>
    %6 = stablehlo.custom_call @Sharding(%5) {mhlo.sharding = "{devices=[2,1]0,1}"} : (tensor<2x4xf32>) -> tensor<2x4xf32>
    return %6 : tensor<2x4xf32>
  }
}
)";
  EXPECT_EQ(ReadAndRun(text, {F32Values({2, 4}, Iota(8))}), "{{4, 5, 6, 7}, {0, 1, 2, 3}}");
}

// The 2024 form: the body a function called between the boundaries, on a
// 2 x 2 mesh ("x" major) whose operand is split P("y", "x") — a transposed
// iota tile assignment; psum over "x" (groups of the devices sharing a y),
// its result P("y") (replicated over x), and each device's partition_id.
TEST_F(ManualRegions, GspmdRegionOverTransposedTiles) {
  const std::string text = R"(module @jit_f attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x4xf32> {mhlo.sharding = "{devices=[2,2]<=[2,2]T(1,0)}"}) -> (tensor<4x2xf32> {jax.result_info = "[0]"}, tensor<4x4xf32>) {
    %0 = stablehlo.custom_call @Sharding(%arg0) {backend_config = "", mhlo.sharding = "{devices=[2,2]<=[2,2]T(1,0)}"} : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<4x4xf32>) -> tensor<2x2xf32>
    %2:2 = call @shmap_body(%1) : (tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>)
    %3 = stablehlo.custom_call @Sharding(%2#0) {mhlo.sharding = "{manual}"} : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %4 = stablehlo.custom_call @SPMDShardToFullShape(%3) {mhlo.sharding = "{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}"} : (tensor<2x2xf32>) -> tensor<4x2xf32>
    %5 = stablehlo.custom_call @Sharding(%2#1) {mhlo.sharding = "{manual}"} : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %6 = stablehlo.custom_call @SPMDShardToFullShape(%5) {mhlo.sharding = "{devices=[2,2]<=[2,2]T(1,0)}"} : (tensor<2x2xf32>) -> tensor<4x4xf32>
    return %4, %6 : tensor<4x2xf32>, tensor<4x4xf32>
  }
  func.func private @shmap_body(%arg0: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
    %0 = "stablehlo.all_reduce"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>, use_global_device_ids}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %1 = stablehlo.partition_id : tensor<ui32>
    %2 = stablehlo.convert %1 : (tensor<ui32>) -> tensor<f32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<f32>) -> tensor<2x2xf32>
    return %0, %3 : tensor<2x2xf32>, tensor<2x2xf32>
  }
}
)";
  std::vector<double> x(16), sum(8), device(16);
  for (int i = 0; i < 16; ++i) x[i] = 5 * i - 31;
  // Device 2 * xi + yi holds rows 2 yi.., columns 2 xi..; the psum over xi
  // adds a row's two column blocks.
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 2; ++c) sum[r * 2 + c] = x[r * 4 + c] + x[r * 4 + c + 2];
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) device[r * 4 + c] = 2 * (c / 2) + r / 2;
  EXPECT_EQ(ReadAndRun(text, {F32Values({4, 4}, x)}), "(" + Rows(sum, 2) + ", " + Rows(device, 4) + ")");
}

// A replicated operand, a global value and a constant the body reads
// without a boundary (every device reads them whole), an all_gather, a
// replicated result; the region's devices from num_partitions.
TEST_F(ManualRegions, GspmdRegionReadsValuesWhole) {
  const std::string text = R"(module @jit_f attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>) -> tensor<4xf32> {
    %0 = stablehlo.custom_call @Sharding(%arg0) {mhlo.sharding = "{replicated}"} : (tensor<2xf32>) -> tensor<2xf32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {mhlo.sharding = "{manual}"} : (tensor<2xf32>) -> tensor<2xf32>
    %2 = stablehlo.partition_id : tensor<ui32>
    %3 = stablehlo.convert %2 : (tensor<ui32>) -> tensor<f32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<f32>) -> tensor<2xf32>
    %c = stablehlo.constant dense<[10.0, 20.0]> : tensor<2xf32>
    %5 = stablehlo.multiply %4, %c : tensor<2xf32>
    %6 = stablehlo.add %1, %5 : tensor<2xf32>
    %7 = stablehlo.add %6, %arg1 : tensor<2xf32>
    %8 = "stablehlo.all_gather"(%7) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> : (tensor<2xf32>) -> tensor<4xf32>
    %9 = stablehlo.custom_call @Sharding(%8) {mhlo.sharding = "{manual}"} : (tensor<4xf32>) -> tensor<4xf32>
    %10 = stablehlo.custom_call @SPMDShardToFullShape(%9) {mhlo.sharding = "{replicated}"} : (tensor<4xf32>) -> tensor<4xf32>
    return %10 : tensor<4xf32>
  }
}
)";
  // Device d: a + d * [10, 20] + b; gathered over d = 0, 1.
  const std::vector<double> a = {1, 2}, b = {100, 200};
  EXPECT_EQ(ReadAndRun(text, {F32Values({2}, a), F32Values({2}, b)}), "{101, 202, 111, 222}");
}

// Boundaries that keep every shape (replicated in and out) around a loop
// whose body meets the other device: still written out per device.
TEST_F(ManualRegions, ReplicatedRegionWithACollectiveInALoop) {
  const std::string text = R"(module @jit_f attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
    %0 = stablehlo.custom_call @Sharding(%arg0) {mhlo.sharding = "{replicated}"} : (tensor<2xf32>) -> tensor<2xf32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {mhlo.sharding = "{manual}"} : (tensor<2xf32>) -> tensor<2xf32>
    %c0 = stablehlo.constant dense<0> : tensor<i32>
    %w:2 = stablehlo.while(%i = %c0, %v = %1) : tensor<i32>, tensor<2xf32>
     cond {
      %c2 = stablehlo.constant dense<2> : tensor<i32>
      %lt = stablehlo.compare LT, %i, %c2 : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %s = "stablehlo.all_reduce"(%v) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %t = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %t : tensor<f32>
      }) : (tensor<2xf32>) -> tensor<2xf32>
      %c1 = stablehlo.constant dense<1> : tensor<i32>
      %n = stablehlo.add %i, %c1 : tensor<i32>
      stablehlo.return %n, %s : tensor<i32>, tensor<2xf32>
    }
    %2 = stablehlo.custom_call @Sharding(%w#1) {mhlo.sharding = "{manual}"} : (tensor<2xf32>) -> tensor<2xf32>
    %3 = stablehlo.custom_call @SPMDShardToFullShape(%2) {mhlo.sharding = "{replicated}"} : (tensor<2xf32>) -> tensor<2xf32>
    return %3 : tensor<2xf32>
  }
}
)";
  // Two trips, each summing the two devices' equal values: four times x.
  EXPECT_EQ(ReadAndRun(text, {F32Values({2}, {3, -5})}), "{12, -20}");
}

// Shardy's round trip through HLO (JAX's export of 2025-05, tpu_Sharding
// "shardy"): the mesh in the module's xla.sdy.meshes, device_ids reversed,
// two operands through one GlobalToLocalShape, two results through one
// LocalToGlobalShape.
TEST_F(ManualRegions, ShardyRoundTrip) {
  const std::string text = R"(module @jit_func attributes {mhlo.frontend_attributes = {xla.sdy.meshes = "{mesh = #sdy.mesh<[\22a\22=2], device_ids=[1, 0]>}"}, mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x2xf32>, %arg1: tensor<2xf32>) -> (tensor<4x2xf32>, tensor<2xf32>) {
    %0:2 = stablehlo.custom_call @xla.sdy.GlobalToLocalShape(%arg0, %arg1) {has_side_effect = true, mhlo.frontend_attributes = {xla.sdy.in_shardings = "#sdy.sharding_per_value<[<@mesh, [{\22a\22}, {}]>, <@mesh, [{}]>]>", xla.sdy.manual_axes = "#sdy<manual_axes{\22a\22}>"}} : (tensor<4x2xf32>, tensor<2xf32>) -> (tensor<2x2xf32>, tensor<2xf32>)
    %1:2 = call @xla.sdy.manual_computation_body(%0#0, %0#1) : (tensor<2x2xf32>, tensor<2xf32>) -> (tensor<2x2xf32>, tensor<2xf32>)
    %2:2 = stablehlo.custom_call @xla.sdy.LocalToGlobalShape(%1#0, %1#1) {mhlo.frontend_attributes = {xla.sdy.manual_axes = "#sdy<manual_axes{\22a\22}>", xla.sdy.out_shardings = "#sdy.sharding_per_value<[<@mesh, [{\22a\22}, {}]>, <@mesh, [{}]>]>"}} : (tensor<2x2xf32>, tensor<2xf32>) -> (tensor<4x2xf32>, tensor<2xf32>)
    %3 = stablehlo.custom_call @xla.sdy.FuncResultSharding(%2#1) {has_side_effect = true, mhlo.frontend_attributes = {xla.sdy.sharding = "#sdy.sharding_per_value<[<@mesh, [{}]>]>"}} : (tensor<2xf32>) -> tensor<2xf32>
    return %2#0, %3 : tensor<4x2xf32>, tensor<2xf32>
  }
  func.func @xla.sdy.manual_computation_body(%arg0: tensor<2x2xf32>, %arg1: tensor<2xf32>) -> (tensor<2x2xf32>, tensor<2xf32>) {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<2xf32>) -> tensor<2x2xf32>
    %1 = stablehlo.multiply %arg0, %0 : tensor<2x2xf32>
    %2 = "stablehlo.all_reduce"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<2xf32>) -> tensor<2xf32>
    %3 = "stablehlo.collective_permute"(%1) <{channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}> : (tensor<2x2xf32>) -> tensor<2x2xf32>
    return %3, %2 : tensor<2x2xf32>, tensor<2xf32>
  }
}
)";
  // Rows 0-1 lie on mesh position 0 (device 1), rows 2-3 on device 0; each
  // device scales its rows by b, then the two swap: the halves trade places.
  const std::vector<double> x = {1, 2, 3, 4, 5, 6, 7, 8}, b = {10, -1};
  EXPECT_EQ(ReadAndRun(text, {F32Values({4, 2}, x), F32Values({2}, b)}), "({{50, -6}, {70, -8}, {10, -2}, {30, -4}}, {20, -2})");
}

// The later round trip: the shardings on the call of the body (escaped
// twice), none on the boundaries; two regions one after the other.
TEST_F(ManualRegions, ShardyRoundTripShardingsOnTheCall) {
  const std::string text = R"(module @jit_f attributes {mhlo.frontend_attributes = {xla.sdy.meshes = "{mesh = #sdy.mesh<[\22a\22=2, \22b\22=2]>}"}, mhlo.num_partitions = 4 : i32} {
  func.func public @main(%arg0: tensor<4x4xf32>) -> tensor<4x4xf32> {
    %0 = stablehlo.custom_call @xla.sdy.GlobalToLocalShape(%arg0) : (tensor<4x4xf32>) -> tensor<2x2xf32>
    %1 = call @xla.sdy.manual_computation_body_0(%0) {mhlo.frontend_attributes = {xla.sdy.in_shardings = "#sdy.sharding_per_value<[<@mesh, [{\\\22a\\\22}, {\\\22b\\\22}]>]>", xla.sdy.manual_axes = "#sdy<manual_axes{\\\22a\\\22, \\\22b\\\22}>", xla.sdy.out_shardings = "#sdy.sharding_per_value<[<@mesh, [{\\\22b\\\22}, {\\\22a\\\22}]>]>"}} : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %2 = stablehlo.custom_call @xla.sdy.LocalToGlobalShape(%1) : (tensor<2x2xf32>) -> tensor<4x4xf32>
    %3 = stablehlo.custom_call @xla.sdy.GlobalToLocalShape(%2) : (tensor<4x4xf32>) -> tensor<4x2xf32>
    %4 = call @xla.sdy.manual_computation_body_1(%3) {mhlo.frontend_attributes = {xla.sdy.in_shardings = "#sdy.sharding_per_value<[<@mesh, [{}, {\\\22a\\\22}], replicated={\\\22b\\\22}>]>", xla.sdy.manual_axes = "#sdy<manual_axes{\\\22a\\\22, \\\22b\\\22}>", xla.sdy.out_shardings = "#sdy.sharding_per_value<[<@mesh, [{}, {\\\22a\\\22}]>]>"}} : (tensor<4x2xf32>) -> tensor<4x2xf32>
    %5 = stablehlo.custom_call @xla.sdy.LocalToGlobalShape(%4) : (tensor<4x2xf32>) -> tensor<4x4xf32>
    return %5 : tensor<4x4xf32>
  }
  func.func @xla.sdy.manual_computation_body_0(%arg0: tensor<2x2xf32>) -> tensor<2x2xf32> {
    return %arg0 : tensor<2x2xf32>
  }
  func.func @xla.sdy.manual_computation_body_1(%arg0: tensor<4x2xf32>) -> tensor<4x2xf32> {
    %0 = stablehlo.add %arg0, %arg0 : tensor<4x2xf32>
    return %0 : tensor<4x2xf32>
  }
}
)";
  // The first region moves block (i, j) (a = i, b = j) to block (j, i): a
  // block transpose; the second doubles.
  std::vector<double> expected(16);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) {
      const int i = r / 2, j = c / 2, source_row = j * 2 + r % 2, source_column = i * 2 + c % 2;
      expected[r * 4 + c] = 2 * (source_row * 4 + source_column);
    }
  EXPECT_EQ(ReadAndRun(text, {F32Values({4, 4}, Iota(16))}), Rows(expected, 4));
}

// A dump before SPMD partitioning (HLO text): the body a called
// computation, its results through get-tuple-element; and a second region
// calling the same body after the first.
TEST_F(ManualRegions, GspmdRegionsInHloText) {
  const std::string text = R"(HloModule jit_f, entry_computation_layout={(f32[8]{0})->(f32[8]{0}, f32[4]{0})}, num_partitions=2

%region_add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}

%shmap_body (Arg_0.1: f32[4]) -> (f32[4], f32[4]) {
  %Arg_0.1 = f32[4]{0} parameter(0)
  %all-reduce = f32[4]{0} all-reduce(%Arg_0.1), channel_id=1, replica_groups={{0,1}}, use_global_device_ids=true, to_apply=%region_add
  %pid = u32[] partition-id()
  %cv = f32[] convert(%pid)
  %bc = f32[4]{0} broadcast(%cv), dimensions={}
  %plus = f32[4]{0} add(%Arg_0.1, %bc)
  ROOT %t = (f32[4]{0}, f32[4]{0}) tuple(%plus, %all-reduce)
}

ENTRY %main (Arg_0.1: f32[8]) -> (f32[8], f32[4]) {
  %Arg_0.1 = f32[8]{0} parameter(0)
  %custom-call.2 = f32[8]{0} custom-call(%Arg_0.1), custom_call_target="Sharding", sharding={devices=[2]<=[2]}
  %custom-call.3 = f32[4]{0} custom-call(%custom-call.2), custom_call_target="SPMDFullToShardShape", sharding={manual}
  %call.4 = (f32[4]{0}, f32[4]{0}) call(%custom-call.3), to_apply=%shmap_body
  %gte.0 = f32[4]{0} get-tuple-element(%call.4), index=0
  %gte.1 = f32[4]{0} get-tuple-element(%call.4), index=1
  %custom-call.5 = f32[4]{0} custom-call(%gte.0), custom_call_target="Sharding", sharding={manual}
  %custom-call.6 = f32[8]{0} custom-call(%custom-call.5), custom_call_target="SPMDShardToFullShape", sharding={devices=[2]<=[2]}
  %custom-call.7 = f32[4]{0} custom-call(%gte.1), custom_call_target="Sharding", sharding={manual}
  %custom-call.8 = f32[4]{0} custom-call(%custom-call.7), custom_call_target="SPMDShardToFullShape", sharding={replicated}
  ROOT %r = (f32[8]{0}, f32[4]{0}) tuple(%custom-call.6, %custom-call.8)
}
)";
  auto module = ParseAndVerifyHlo(text);
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  EXPECT_EQ((*module)->num_partitions(), 1);
  // Device 1 adds 1 to its half; the psum adds the halves.
  EXPECT_EQ(RunAndCompareWith(**module, {F32Values({8}, Iota(8))}).ValuesToString(), "({0, 1, 2, 3, 5, 6, 7, 8}, {4, 6, 8, 10})");

  std::string twice = text;
  const std::string root = "  ROOT %r = (f32[8]{0}, f32[4]{0}) tuple(%custom-call.6, %custom-call.8)";
  twice.replace(twice.find(root), root.size(),
                "  %again.1 = f32[8]{0} custom-call(%custom-call.6), custom_call_target=\"Sharding\", sharding={devices=[2]<=[2]}\n"
                "  %again.2 = f32[4]{0} custom-call(%again.1), custom_call_target=\"SPMDFullToShardShape\", sharding={manual}\n"
                "  %again.3 = (f32[4]{0}, f32[4]{0}) call(%again.2), to_apply=%shmap_body\n"
                "  %again.4 = f32[4]{0} get-tuple-element(%again.3), index=0\n"
                "  %again.5 = f32[8]{0} custom-call(%again.4), custom_call_target=\"SPMDShardToFullShape\", sharding={devices=[2]<=[2]}\n"
                "  ROOT %r = (f32[8]{0}, f32[4]{0}) tuple(%again.5, %custom-call.8)");
  auto again = ParseAndVerifyHlo(twice);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(RunAndCompareWith(**again, {F32Values({8}, Iota(8))}).ValuesToString(), "({0, 1, 2, 3, 6, 7, 8, 9}, {4, 6, 8, 10})");

  // The operand's sharding on the parameter itself, no Sharding call between.
  std::string on_parameter = text;
  const std::string parameter = "  %Arg_0.1 = f32[8]{0} parameter(0)\n  %custom-call.2";
  on_parameter.replace(on_parameter.find(parameter), parameter.size(), "  %Arg_0.1 = f32[8]{0} parameter(0), sharding={devices=[2]1,0}\n  %custom-call.2");
  const std::string entry = "custom-call(%custom-call.2), custom_call_target=\"SPMDFullToShardShape\"";
  on_parameter.replace(on_parameter.find(entry), entry.size(), "custom-call(%Arg_0.1), custom_call_target=\"SPMDFullToShardShape\"");
  auto reversed = ParseAndVerifyHlo(on_parameter);
  ASSERT_TRUE(reversed.ok()) << reversed.status().ToString();
  // Device 1 now holds the first half, device 0 the second; the result is
  // put together in the order [2]<=[2], device 0's first.
  EXPECT_EQ(RunAndCompareWith(**reversed, {F32Values({8}, Iota(8))}).ValuesToString(), "({4, 5, 6, 7, 1, 2, 3, 4}, {4, 6, 8, 10})");
}

const char kRegionHead[] = R"(module @jit_f attributes {mhlo.num_partitions = 2 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
)";

std::string ReadError(const std::string& body) {
  auto p = ReadStablehlo(kRegionHead + body + "  }\n}\n", false);
  return p.ok() ? "read" : p.status().ToString();
}

TEST_F(ManualRegions, Errors) {
  const std::string entry =
      "    %0 = stablehlo.custom_call @Sharding(%arg0) {mhlo.sharding = \"{devices=[2]0,1}\"} : (tensor<4xf32>) -> tensor<4xf32>\n"
      "    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {mhlo.sharding = \"{manual}\"} : (tensor<4xf32>) -> tensor<2xf32>\n";
  const std::string exit = "    %2 = stablehlo.custom_call @SPMDShardToFullShape(%1) {mhlo.sharding = \"{devices=[2]0,1}\"} : (tensor<2xf32>) -> tensor<4xf32>\n";
  EXPECT_EQ(ReadError(entry + exit + "    return %2 : tensor<4xf32>\n"), "read");
  // No Sharding before the entry: the operand's shards are unknown.
  EXPECT_NE(ReadError("    %1 = stablehlo.custom_call @SPMDFullToShardShape(%arg0) {mhlo.sharding = \"{manual}\"} : (tensor<4xf32>) -> tensor<2xf32>\n" +
                      exit + "    return %2 : tensor<4xf32>\n")
                .find("the sharding of its operand is not known"),
            std::string::npos);
  // Partly manual (shard_map's auto axes).
  EXPECT_NE(ReadError(entry + "    %2 = stablehlo.custom_call @SPMDShardToFullShape(%1) {mhlo.sharding = \"{devices=[2,1]0,1 last_tile_dims={manual}}\"} "
                              ": (tensor<2xf32>) -> tensor<4xf32>\n    return %2 : tensor<4xf32>\n")
                .find("manual over some devices only"),
            std::string::npos);
  // A local value read outside the region.
  EXPECT_NE(ReadError(entry + exit + "    %3 = stablehlo.concatenate %1, %1, dim = 0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>\n"
                                     "    %4 = stablehlo.add %2, %3 : tensor<4xf32>\n    return %4 : tensor<4xf32>\n")
                .find("is read outside the region"),
            std::string::npos);
  // An entry no exit closes.
  EXPECT_NE(ReadError(entry + "    %3 = stablehlo.concatenate %1, %1, dim = 0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>\n"
                              "    return %3 : tensor<4xf32>\n")
                .find("opens a manual region that no exit closes"),
            std::string::npos);
  // Shards that do not tile the array.
  EXPECT_NE(ReadError("    %0 = stablehlo.custom_call @Sharding(%arg0) {mhlo.sharding = \"{devices=[2]0,0}\"} : (tensor<4xf32>) -> tensor<4xf32>\n"
                      "    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {mhlo.sharding = \"{manual}\"} : (tensor<4xf32>) -> tensor<2xf32>\n" +
                      exit + "    return %2 : tensor<4xf32>\n")
                .find("no permutation"),
            std::string::npos);
  // A shard of the wrong shape.
  EXPECT_NE(ReadError(entry + "    %2 = stablehlo.custom_call @SPMDShardToFullShape(%1) {mhlo.sharding = \"{devices=[4]0,1,2,3}\"} "
                              ": (tensor<2xf32>) -> tensor<4xf32>\n    return %2 : tensor<4xf32>\n")
                .find("spans 4 devices"),
            std::string::npos);
  // A Shardy boundary naming a mesh nothing defines.
  EXPECT_NE(ReadError("    %1 = stablehlo.custom_call @xla.sdy.GlobalToLocalShape(%arg0) {mhlo.frontend_attributes = {xla.sdy.in_shardings = "
                      "\"#sdy.sharding_per_value<[<@nowhere, [{\\22a\\22}]>]>\", xla.sdy.manual_axes = \"#sdy<manual_axes{\\22a\\22}>\"}} "
                      ": (tensor<4xf32>) -> tensor<2xf32>\n"
                      "    %2 = stablehlo.custom_call @xla.sdy.LocalToGlobalShape(%1) {mhlo.frontend_attributes = {xla.sdy.out_shardings = "
                      "\"#sdy.sharding_per_value<[<@nowhere, [{\\22a\\22}]>]>\", xla.sdy.manual_axes = \"#sdy<manual_axes{\\22a\\22}>\"}} "
                      ": (tensor<2xf32>) -> tensor<4xf32>\n    return %2 : tensor<4xf32>\n")
                .find("@nowhere, which no sdy.mesh or xla.sdy.meshes defines"),
            std::string::npos);
}

}  // namespace
}  // namespace vkxla
