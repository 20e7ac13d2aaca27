module @jit_func attributes {mhlo.frontend_attributes = {xla.sdy.meshes = "{mesh = #sdy.mesh<[\22a\22=2], device_ids=[1, 0]>}"}, mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
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
