module @jit_f attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2], device_ids=[3, 2, 1, 0]>
  func.func public @main(%arg0: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<2x4xf32>, tensor<8x2xf32>, tensor<4x4xf32>) {
    %0:4 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {"y"}]>] out_shardings=[<@mesh, [{"x"}, {}]>, <@mesh, [{"x"}, {"y"}]>, <@mesh, [{"x"}, {"y"}]>, <@mesh, [{"x"}, {"y"}], replicated={}>] manual_axes={"x", "y"} (%arg1: tensor<2x2xf32>) {
      %g = "stablehlo.all_gather"(%arg1) <{all_gather_dim = 1 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>, use_global_device_ids}> : (tensor<2x2xf32>) -> tensor<2x4xf32>
      %r = "stablehlo.reduce_scatter"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>, scatter_dimension = 0 : i64, use_global_device_ids}> ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %s = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %s : tensor<f32>
      }) : (tensor<2x2xf32>) -> tensor<1x2xf32>
      %t = "stablehlo.all_to_all"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 6, type = 1>, concat_dimension = 0 : i64, replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>, split_count = 2 : i64, split_dimension = 1 : i64}> : (tensor<2x2xf32>) -> tensor<4x1xf32>
      %q = "stablehlo.collective_permute"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 4, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>}> : (tensor<2x2xf32>) -> tensor<2x2xf32>
      %p = stablehlo.partition_id : tensor<ui32>
      %pc = stablehlo.convert %p : (tensor<ui32>) -> tensor<f32>
      %pb = stablehlo.broadcast_in_dim %pc, dims = [] : (tensor<f32>) -> tensor<2x2xf32>
      %m = stablehlo.add %q, %pb : tensor<1x2xf32>
      sdy.return %g, €ç”‹%t, %m : tensor<2x4xf32>, tensor<1x2xf32>, tensor<4x1xf32>, tensor<2x2xf32>
    } : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<2x4xf32>, tensor<8x2xf32>, tensor<4x4xf32>)
    return %0#0, %0#1, %0#2, %0#3 : tensor<4x4xf32>, tensor<3x4xf32>, tensor<8x2xf32>, tensor<4x4xf32>  
}
}
