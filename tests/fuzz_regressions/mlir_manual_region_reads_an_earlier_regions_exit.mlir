module @jit_f attributes {mhlo.frontend_attributes = {xla.sdy.meshes = "{mesh = #sdy.mesh<[\22a\22=2, \22b\22=2]>}"}, mhlo.num_partitions = 4 : i32} {
  func.func public @main(%arg0: tensor<4x4xf32>) -> tensor<4x4xf32> {
    %0 = stablehlo.custom_call @xla.sdy.GlobalToLocalShape(%arg0) : (tensor<4x4xf32>) -> tensor<2x2xf32>
    %1 = call @xla.sdy.manual_computation_body_0(%0) {mhlo.frontend_attributes = {xla.sdy.in_shardings = "#sdy.sharding_per_value<[<@mesh, [{\\\22a\\\22}, {\\\22b\\\22}]>]>", xla.sdy.manual_axes = "#sdy<manual_axes{\\\22a\\\22, \\\22b\\\22}>", xla.sdy.out_shardings = "#sdy.sharding_per_value<[<@mesh, [{\\\22b\\\22}, {\\\22a\\\22}]>]>"}} : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %2 = stablehlo.custom_call @xla.sdy.LocalToGlobalShape(%1) : (tensor<2x2xf32>) -> tensor<4x4xf32>
    %3 = stablehlo.custom_call @xla.sdy.Gl2balToLocalShape(%2) : (tensor<4x4xf32>) -> tensor<4x2xf32>
    %4 = call @xla.sdy.manual_computation_body_1(%3) {mhlo.frontend_attributes = {xla.sdy.in_shardings = "#sdy.sharding_per_value<[<@mesh, [{}, {\\\22a\\\22}], replicated={\\\22b\\\22}>]>", xla.sdy.manual_axes = "#sdy<manual_axes{\\\22a\\\22, \\\22b\\\22}>", xla.sdy.out_shardings = "#sdy.sharding_per_value<[<@mesh, [{}, {\\\22a\\\22}]>]>"}} : (tensor<5x2xf32>) -> tensor<4x2xf32>
    %5 = stablehlo.custom_call @xla.sdy.LocalToGlobalShape(%4) : (tensor<4x2xf32>) -> tensor<4x4xf32>
    return %5 : tensor<4x4xf32>
  }
  func.func @xla.sdy.manual_computation_body_0(%arg0: tensor<2x2xf32>) -> tensor<2x2xf32> {
    return %arg0 : tensor<2x2xf32>
  }
  func.func @xla.sdy.manual_computation_body_1(%arg0: tensor<4x2xf32>) -> tensor<4x2xf32> {
    %0 = stablehlo.add %arg0, %arg0 : tensor<5x2xf32>
    return %0 : tensor<4x2xf32>
  }
}
