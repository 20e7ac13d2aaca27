// jax.shard_map's sdy.manual_computation over sharded mesh axes, run on one
// device (frontends/spmd_expansion.h): each device's copy of the body on
// its shard, the collectives between the copies, the results put together
// by the out_shardings. Every expected value is worked out here from the
// inputs (the reference evaluator runs the same expansion, so it checks
// the device, not the semantics).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/stablehlo_test_util.h"

namespace vkxla {
namespace {

class SpmdExpansion : public ::testing::Test {
 protected:
  void TearDown() override { ExpectNoValidationMessages(); }
};

std::string Channel(int handle) { return "channel_handle = #stablehlo.channel_handle<handle = " + std::to_string(handle) + ", type = 1>"; }

const char kAdd[] = "({\n      ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n        %s = stablehlo.add %a, %b : tensor<f32>\n"
                    "        stablehlo.return %s : tensor<f32>\n      })";

// One axis of two devices: psum (a plain add, and a reducer that is not
// one op, which folds by map), partition_id, a ppermute swapping halves.
TEST_F(SpmdExpansion, OneAxis) {
  const std::string text =
      "module @jit_f attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {\n"
      "  sdy.mesh @mesh = <[\"x\"=2]>\n"
      "  func.func public @main(%arg0: tensor<8xf32>) -> (tensor<4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<4xf32>) {\n"
      "    %0:4 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{\"x\"}]>] out_shardings=[<@mesh, [{}]>, <@mesh, [{\"x\"}]>, "
      "<@mesh, [{\"x\"}]>, <@mesh, [{}]>] manual_axes={\"x\"} (%arg1: tensor<4xf32>) {\n"
      "      %1 = \"stablehlo.all_reduce\"(%arg1) <{" + Channel(1) + ", replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> " +
      kAdd + " : (tensor<4xf32>) -> tensor<4xf32>\n"
      "      %p = stablehlo.partition_id : tensor<ui32>\n"
      "      %pc = stablehlo.convert %p : (tensor<ui32>) -> tensor<f32>\n"
      "      %pb = stablehlo.broadcast_in_dim %pc, dims = [] : (tensor<f32>) -> tensor<4xf32>\n"
      "      %q = \"stablehlo.collective_permute\"(%arg1) <{" + Channel(2) + ", source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}> "
      ": (tensor<4xf32>) -> tensor<4xf32>\n"
      "      %m = \"stablehlo.all_reduce\"(%arg1) <{" + Channel(3) + ", replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> ({\n"
      "      ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
      "        %one = stablehlo.constant dense<1.0> : tensor<f32>\n"
      "        %s = stablehlo.add %a, %b : tensor<f32>\n"
      "        %t = stablehlo.multiply %s, %one : tensor<f32>\n"
      "        stablehlo.return %t : tensor<f32>\n"
      "      }) : (tensor<4xf32>) -> tensor<4xf32>\n"
      "      sdy.return %1, %pb, %q, %m : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>\n"
      "    } : (tensor<8xf32>) -> (tensor<4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<4xf32>)\n"
      "    return %0#0, %0#1, %0#2, %0#3 : tensor<4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<4xf32>\n  }\n}\n";
  std::vector<double> x(8), sum(4), pid(8), swapped(8);
  for (int i = 0; i < 8; ++i) x[i] = 3 * i - 7;
  for (int i = 0; i < 4; ++i) sum[i] = x[i] + x[i + 4];
  for (int i = 0; i < 8; ++i) pid[i] = i / 4, swapped[i] = x[(i + 4) % 8];
  EXPECT_EQ(ReadAndRun(text, {F32Values({8}, x)}), "(" + Values(sum) + ", " + Values(pid) + ", " + Values(swapped) + ", " + Values(sum) + ")");
}

// A 2 x 2 mesh, a matrix split both ways: all_gather along y, psum_scatter
// along x, all_to_all along y, each over the groups of one axis.
TEST_F(SpmdExpansion, TwoAxes) {
  const std::string groups_y = "replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>";
  const std::string groups_x = "replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>";
  const std::string text =
      "module @jit_f attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {\n"
      "  sdy.mesh @mesh = <[\"x\"=2, \"y\"=2]>\n"
      "  func.func public @main(%arg0: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<2x4xf32>, tensor<8x2xf32>) {\n"
      "    %0:3 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{\"x\"}, {\"y\"}]>] out_shardings=[<@mesh, [{\"x\"}, {}]>, "
      "<@mesh, [{\"x\"}, {\"y\"}]>, <@mesh, [{\"x\"}, {\"y\"}]>] manual_axes={\"x\", \"y\"} (%arg1: tensor<2x2xf32>) {\n"
      "      %g = \"stablehlo.all_gather\"(%arg1) <{all_gather_dim = 1 : i64, " + Channel(1) + ", " + groups_y + ", use_global_device_ids}> "
      ": (tensor<2x2xf32>) -> tensor<2x4xf32>\n"
      "      %r = \"stablehlo.reduce_scatter\"(%arg1) <{" + Channel(2) + ", " + groups_x + ", scatter_dimension = 0 : i64, use_global_device_ids}> " +
      kAdd + " : (tensor<2x2xf32>) -> tensor<1x2xf32>\n"
      "      %t = \"stablehlo.all_to_all\"(%arg1) <{" + Channel(3) + ", concat_dimension = 0 : i64, " + groups_y +
      ", split_count = 2 : i64, split_dimension = 1 : i64}> : (tensor<2x2xf32>) -> tensor<4x1xf32>\n"
      "      sdy.return %g, %r, %t : tensor<2x4xf32>, tensor<1x2xf32>, tensor<4x1xf32>\n"
      "    } : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<2x4xf32>, tensor<8x2xf32>)\n"
      "    return %0#0, %0#1, %0#2 : tensor<4x4xf32>, tensor<2x4xf32>, tensor<8x2xf32>\n  }\n}\n";
  std::vector<double> a(16);
  for (int i = 0; i < 16; ++i) a[i] = i * i - 7;
  auto A = [&](int r, int c) { return a[r * 4 + c]; };
  // psum_scatter over x: row r of device (x, y) is rows r of both x blocks, summed.
  std::vector<double> scattered(8), exchanged(16);
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 4; ++c) scattered[r * 4 + c] = A(r, c) + A(2 + r, c);
  // all_to_all over y: device (x, p) stacks column p of each y block i.
  for (int x = 0; x < 2; ++x)
    for (int i = 0; i < 2; ++i)
      for (int r = 0; r < 2; ++r)
        for (int p = 0; p < 2; ++p) exchanged[(x * 4 + i * 2 + r) * 2 + p] = A(x * 2 + r, i * 2 + p);
  auto rows = [](const std::vector<double>& v, int cols) {
    std::string s = "{";
    for (size_t r = 0; r * cols < v.size(); ++r) s += (r ? ", " : "") + Values(std::vector<double>(v.begin() + r * cols, v.begin() + (r + 1) * cols));
    return s + "}";
  };
  EXPECT_EQ(ReadAndRun(text, {F32Values({4, 4}, a)}), "(" + rows(a, 4) + ", " + rows(scattered, 4) + ", " + rows(exchanged, 2) + ")");
}

// device_ids place the devices on the mesh: device d holds the shard at
// its position, partition_id is d, and groups name devices.
TEST_F(SpmdExpansion, DeviceIdsPlaceTheDevices) {
  const std::string text =
      "module @jit_f attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {\n"
      "  sdy.mesh @mesh = <[\"x\"=2, \"y\"=2], device_ids=[3, 2, 1, 0]>\n"
      "  func.func public @main(%arg0: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {\n"
      "    %0:2 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{\"x\"}, {\"y\"}]>] out_shardings=[<@mesh, [{\"x\"}, {\"y\"}]>, "
      "<@mesh, [{\"x\"}, {\"y\"}]>] manual_axes={\"x\", \"y\"} (%arg1: tensor<1x1xf32>) {\n"
      "      %p = stablehlo.partition_id : tensor<ui32>\n"
      "      %pc = stablehlo.convert %p : (tensor<ui32>) -> tensor<f32>\n"
      "      %pr = stablehlo.reshape %pc : (tensor<f32>) -> tensor<1x1xf32>\n"
      "      %s = \"stablehlo.all_reduce\"(%arg1) <{" + Channel(1) + ", replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>, use_global_device_ids}> " +
      kAdd + " : (tensor<1x1xf32>) -> tensor<1x1xf32>\n"
      "      sdy.return %pr, %s : tensor<1x1xf32>, tensor<1x1xf32>\n"
      "    } : (tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>)\n"
      "    return %0#0, %0#1 : tensor<2x2xf32>, tensor<2x2xf32>\n  }\n}\n";
  // Positions (0,0) (0,1) (1,0) (1,1) hold devices 3 2 1 0 and values 10 11 12 13;
  // devices 0 and 1 (13 + 12) and 2 and 3 (11 + 10) sum.
  EXPECT_EQ(ReadAndRun(text, {F32Values({2, 2}, {10, 11, 12, 13})}), "({{3, 2}, {1, 0}}, {{21, 21}, {25, 25}})");
}

// A product whose contraction is split over y: each device multiplies its
// halves, psum adds the partial products (the shape of tensor parallelism).
TEST_F(SpmdExpansion, ContractionSplitAcrossDevices) {
  const std::string text =
      "module @jit_matmul attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {\n"
      "  sdy.mesh @mesh = <[\"x\"=1, \"y\"=2]>\n"
      "  func.func public @main(%arg0: tensor<2x4xf32>, %arg1: tensor<4x3xf32>) -> tensor<2x3xf32> {\n"
      "    %0 = sdy.manual_computation(%arg0, %arg1) in_shardings=[<@mesh, [{\"x\"}, {\"y\"}]>, <@mesh, [{\"y\"}, {}]>] "
      "out_shardings=[<@mesh, [{\"x\"}, {}]>] manual_axes={\"y\", \"x\"} (%a: tensor<2x2xf32>, %b: tensor<2x3xf32>) {\n"
      "      %1 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x2xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>\n"
      "      %2 = \"stablehlo.all_reduce\"(%1) <{" + Channel(1) + ", replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> " +
      kAdd + " : (tensor<2x3xf32>) -> tensor<2x3xf32>\n"
      "      sdy.return %2 : tensor<2x3xf32>\n"
      "    } : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>\n"
      "    return %0 : tensor<2x3xf32>\n  }\n}\n";
  std::vector<double> a = {1, 2, 3, 4, -1, 0, 2, 5}, b = {1, 0, 2, -1, 3, 1, 0, 2, 2, 4, -2, 1}, c(6, 0);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) c[i * 3 + j] += a[i * 4 + k] * b[k * 3 + j];
  EXPECT_EQ(ReadAndRun(text, {F32Values({2, 4}, a), F32Values({4, 3}, b)}),
            "{" + Values({c[0], c[1], c[2]}) + ", " + Values({c[3], c[4], c[5]}) + "}");
}

// A loop meeting other devices runs in lockstep: a ring of ppermutes adding
// up every device's shard (what a ring all-reduce does), and a loop whose
// trip count is the device's own (partition_id + 1), each device stopping
// at its own count.
TEST_F(SpmdExpansion, LoopsRunInLockstep) {
  const std::string text =
      "module @jit_ring attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {\n"
      "  sdy.mesh @mesh = <[\"x\"=4]>\n"
      "  func.func public @main(%arg0: tensor<8xf32>) -> (tensor<8xf32>, tensor<4xf32>) {\n"
      "    %0:2 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{\"x\"}]>] out_shardings=[<@mesh, [{\"x\"}]>, <@mesh, [{\"x\"}]>] "
      "manual_axes={\"x\"} (%x: tensor<2xf32>) {\n"
      "      %c0 = stablehlo.constant dense<0> : tensor<i32>\n"
      "      %w:3 = stablehlo.while(%i = %c0, %v = %x, %acc = %x) : tensor<i32>, tensor<2xf32>, tensor<2xf32>\n"
      "       cond {\n        %n = stablehlo.constant dense<3> : tensor<i32>\n"
      "        %lt = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>\n        stablehlo.return %lt : tensor<i1>\n"
      "      } do {\n        %one = stablehlo.constant dense<1> : tensor<i32>\n        %j = stablehlo.add %i, %one : tensor<i32>\n"
      "        %next = \"stablehlo.collective_permute\"(%v) <{" + Channel(1) + ", source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : "
      "tensor<4x2xi64>}> : (tensor<2xf32>) -> tensor<2xf32>\n"
      "        %sum = stablehlo.add %acc, %next : tensor<2xf32>\n"
      "        stablehlo.return %j, %next, %sum : tensor<i32>, tensor<2xf32>, tensor<2xf32>\n      }\n"
      "      %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
      "      %t:2 = stablehlo.while(%i = %c0, %count = %z) : tensor<i32>, tensor<f32>\n"
      "       cond {\n        %p = stablehlo.partition_id : tensor<ui32>\n        %pi = stablehlo.convert %p : (tensor<ui32>) -> tensor<i32>\n"
      "        %le = stablehlo.compare LE, %i, %pi : (tensor<i32>, tensor<i32>) -> tensor<i1>\n        stablehlo.return %le : tensor<i1>\n"
      "      } do {\n        %one = stablehlo.constant dense<1> : tensor<i32>\n        %j = stablehlo.add %i, %one : tensor<i32>\n"
      "        %onef = stablehlo.constant dense<1.0> : tensor<f32>\n        %more = stablehlo.add %count, %onef : tensor<f32>\n"
      "        stablehlo.return %j, %more : tensor<i32>, tensor<f32>\n      }\n"
      "      %trips = stablehlo.reshape %t#1 : (tensor<f32>) -> tensor<1xf32>\n"
      "      sdy.return %w#2, %trips : tensor<2xf32>, tensor<1xf32>\n"
      "    } : (tensor<8xf32>) -> (tensor<8xf32>, tensor<4xf32>)\n"
      "    return %0#0, %0#1 : tensor<8xf32>, tensor<4xf32>\n  }\n}\n";
  std::vector<double> x = {1, 2, 10, 20, 100, 200, 1000, 2000};
  EXPECT_EQ(ReadAndRun(text, {F32Values({8}, x)}), "({1111, 2222, 1111, 2222, 1111, 2222, 1111, 2222}, {1, 2, 3, 4})");
}

// A partly manual computation: "x" manual, "y" (2 devices) left
// automatic. The in_sharding's "y" splits nothing on one device; a copy per
// position of "x", the devices at y = 0 (0 and 2); psum and ppermute over
// "x" name global device ids, partition_id gives them.
TEST_F(SpmdExpansion, PartlyManual) {
  const std::string text =
      "module @jit_f attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {\n"
      "  sdy.mesh @mesh = <[\"x\"=2, \"y\"=2]>\n"
      "  func.func public @main(%arg0: tensor<4x4xf32>) -> (tensor<2x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {\n"
      "    %0:3 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{\"x\"}, {\"y\"}]>] out_shardings=[<@mesh, [{}, {\"y\"}]>, "
      "<@mesh, [{\"x\"}, {}]>, <@mesh, [{\"x\"}, {}]>] manual_axes={\"x\"} (%arg1: tensor<2x4xf32>) {\n"
      "      %s = \"stablehlo.all_reduce\"(%arg1) <{" + Channel(1) + ", replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>, use_global_device_ids}> " +
      kAdd + " : (tensor<2x4xf32>) -> tensor<2x4xf32>\n"
      "      %p = stablehlo.partition_id : tensor<ui32>\n"
      "      %pc = stablehlo.convert %p : (tensor<ui32>) -> tensor<f32>\n"
      "      %pb = stablehlo.broadcast_in_dim %pc, dims = [] : (tensor<f32>) -> tensor<2x4xf32>\n"
      "      %q = \"stablehlo.collective_permute\"(%arg1) <{" + Channel(2) + ", source_target_pairs = dense<[[0, 2], [2, 0], [1, 3], [3, 1]]> : tensor<4x2xi64>}> "
      ": (tensor<2x4xf32>) -> tensor<2x4xf32>\n"
      "      sdy.return %s, %pb, %q : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>\n"
      "    } : (tensor<4x4xf32>) -> (tensor<2x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>)\n"
      "    return %0#0, %0#1, %0#2 : tensor<2x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>\n  }\n}\n";
  std::vector<double> x(16), sum(8), ids(16), swapped(16);
  for (int i = 0; i < 16; ++i) x[i] = 7 * i - 50;
  for (int i = 0; i < 8; ++i) sum[i] = x[i] + x[i + 8];
  for (int i = 0; i < 16; ++i) ids[i] = i < 8 ? 0 : 2, swapped[i] = x[(i + 8) % 16];
  EXPECT_EQ(ReadAndRun(text, {F32Values({4, 4}, x)}), "(" + Rows(sum, 4) + ", " + Rows(ids, 4) + ", " + Rows(swapped, 4) + ")");
}

// What is not written out per device is a clear error at the statement.
TEST_F(SpmdExpansion, Errors) {
  auto module = [](const std::string& mesh, const std::string& manual, const std::string& global, const std::string& local,
                   const std::string& body) {
    return "module @jit_f {\n  sdy.mesh @mesh = <[" + mesh + "]>\n"
           "  func.func public @main(%arg0: tensor<" + global + "xf32>) -> tensor<" + global + "xf32> {\n"
           "    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{\"x\"}]>] out_shardings=[<@mesh, [{\"x\"}]>] manual_axes={" +
           manual + "} (%arg1: tensor<" + local + "xf32>) {\n" + body +
           "    } : (tensor<" + global + "xf32>) -> tensor<" + global + "xf32>\n"
           "    return %0 : tensor<" + global + "xf32>\n  }\n}\n";
  };
  const std::string plain = "      sdy.return %arg1 : tensor<2xf32>\n";
  const std::string in_branch =
      "      %c = stablehlo.constant dense<true> : tensor<i1>\n"
      "      %w = \"stablehlo.if\"(%c) ({\n"
      "        %s = \"stablehlo.all_reduce\"(%arg1) <{" + Channel(1) + ", replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> " +
      kAdd + " : (tensor<2xf32>) -> tensor<2xf32>\n        stablehlo.return %s : tensor<2xf32>\n"
      "      }, {\n        stablehlo.return %arg1 : tensor<2xf32>\n      }) : (tensor<i1>) -> tensor<2xf32>\n"
      "      sdy.return %w : tensor<2xf32>\n";
  struct Case {
    std::string text, expect;
  } cases[] = {
      {module("\"x\"=2", "\"x\"", "4", "2", in_branch), "of a manual computation over several devices calls a computation"},
      {module("\"x\"=2, \"y\"=2", "\"x\"", "4", "2",
              "      %s = \"stablehlo.all_reduce\"(%arg1) <{" + Channel(1) + ", replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>, use_global_device_ids}> " +
                  kAdd + " : (tensor<2xf32>) -> tensor<2xf32>\n      sdy.return %s : tensor<2xf32>\n"),
       "cross an automatic mesh axis"},
      {module("\"x\"=2", "\"x\"", "3", "2", plain), "4:5: sdy.manual_computation: a manual computation's operand f32[3]: dimension 0 does not split into 2 shards"},
      {module("\"x\"=2", "\"x\"", "4", "3", "      sdy.return %arg1 : tensor<3xf32>\n"), "its body's argument 0 is f32[3] but a shard of f32[4] is f32[2]"},
      {module("\"x\"=128", "\"x\"", "128", "1", "      sdy.return %arg1 : tensor<1xf32>\n"), "a manual computation over 128 devices: at most 64"},
      {module("\"x\"=2", "\"x\"", "4", "2", "      sdy.return %arg1, %arg1 : tensor<2xf32>, tensor<2xf32>\n"), "body returns 2 values for 1 results"},
      {module("\"x\"=2", "\"x\"", "4", "2",
              "      %g = \"stablehlo.all_gather\"(%arg1) <{all_gather_dim = 5 : i64, " + Channel(1) +
                  ", replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> : (tensor<2xf32>) -> tensor<4xf32>\n"
              "      %s = stablehlo.slice %g [0:2] : (tensor<4xf32>) -> tensor<2xf32>\n      sdy.return %s : tensor<2xf32>\n"),
       "all-gather"},
  };
  // A nested shard_map: the inner one is read inside the outer's body.
  const std::string nested =
      "module @jit_f {\n  sdy.mesh @mesh = <[\"x\"=2, \"y\"=2]>\n"
      "  func.func public @main(%arg0: tensor<4x4xf32>) -> tensor<4x4xf32> {\n"
      "    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{\"x\"}, {}]>] out_shardings=[<@mesh, [{\"x\"}, {}]>] manual_axes={\"x\"} (%arg1: tensor<2x4xf32>) {\n"
      "      %1 = sdy.manual_computation(%arg1) in_shardings=[<@mesh, [{}, {\"y\"}]>] out_shardings=[<@mesh, [{}, {\"y\"}]>] manual_axes={\"y\"} (%arg2: tensor<2x2xf32>) {\n"
      "        sdy.return %arg2 : tensor<2x2xf32>\n      } : (tensor<2x4xf32>) -> tensor<2x4xf32>\n"
      "      sdy.return %1 : tensor<2x4xf32>\n    } : (tensor<4x4xf32>) -> tensor<4x4xf32>\n"
      "    return %0 : tensor<4x4xf32>\n  }\n}\n";
  auto inner = ReadStablehlo(nested, false);
  ASSERT_FALSE(inner.ok());
  EXPECT_NE(inner.status().message().find("sdy.manual_computation inside another's body (a nested shard_map)"), std::string::npos)
      << inner.status().message();
  EXPECT_EQ(inner.status().message().rfind("5:", 0), 0u) << inner.status().message();  // at the inner one's line
  for (const Case& c : cases) {
    auto p = ReadStablehlo(c.text, false);
    ASSERT_FALSE(p.ok()) << c.expect;
    EXPECT_NE(p.status().message().find(c.expect), std::string::npos) << p.status().message();
  }
  // The conditional's message names why.
  auto p = ReadStablehlo(cases[0].text, false);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("holds a collective or partition-id: only a while loop's copies run in lockstep"), std::string::npos)
      << p.status().message();
}

}  // namespace
}  // namespace vkxla
