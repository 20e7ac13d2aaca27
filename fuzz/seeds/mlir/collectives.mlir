module @collectives attributes {mhlo.num_replicas = 2 : i32, mhlo.num_partitions = 1 : i32} {
  func.func @step(%x: tensor<2x4xf32>, %t: !stablehlo.token) -> (tensor<2x8xf32>, tensor<4x2xf32>, tensor<ui32>, !stablehlo.token) {
    %s = "stablehlo.all_reduce"(%x) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %0 = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %0 : tensor<f32>
    }) {replica_groups = dense<[[0, -1], [1, -1]]> : tensor<2x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>} : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %g = "stablehlo.all_gather"(%s) {all_gather_dim = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>} : (tensor<2x4xf32>) -> tensor<2x8xf32>
    %a = "stablehlo.all_to_all"(%x) {split_dimension = 1 : i64, concat_dimension = 0 : i64, split_count = 2 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x4xf32>) -> tensor<4x2xf32>
    %r = stablehlo.replica_id : tensor<ui32>
    %u = "stablehlo.send"(%x, %t) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 2>, is_host_transfer = true} : (tensor<2x4xf32>, !stablehlo.token) -> !stablehlo.token
    interpreter.print %r : tensor<ui32>
    return %g, %a, %r, %u : tensor<2x8xf32>, tensor<4x2xf32>, tensor<ui32>, !stablehlo.token
  }
  func.func @main() {
    %x = stablehlo.constant dense<1.0> : tensor<2x4xf32>
    %t = stablehlo.after_all : !stablehlo.token
    %r:8 = "interpreter.run_parallel"(%x, %t, %x, %t) {programs = [[@step], [@step]]} : (tensor<2x4xf32>, !stablehlo.token, tensor<2x4xf32>, !stablehlo.token) -> (tensor<2x8xf32>, tensor<4x2xf32>, tensor<ui32>, !stablehlo.token, tensor<2x8xf32>, tensor<4x2xf32>, tensor<ui32>, !stablehlo.token)
    check.expect_eq_const %r#2, dense<0> : tensor<ui32>
    func.return
  }
}
