module @jit_f {
  sdy.mesh @mesh = <["x"=1]>
  func.func private @declared(tensor<4xf32>) -> tensor<4xf32>
  func.func public @main(%arg0: tensor<4x2xf32>, %arg1: tensor<2x2xi8>) -> (tensor<4x2xf32>, tensor<2x2xi8>, tensor<3x2xi32>) {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%arg2: tensor<4x2xf32>) {
      %1 = stablehlo.abs %arg2 : tensor<4x2xf32>
      sdy.return %1 : tensor<4x2xf32>
    } : (tensor<4x2xf32>) -> tensor<4x2xf32>
    %q = stablehlo.bitcast_convert %arg1 : (tensor<2x2xi8>) -> tensor<2x2x!quant.uniform<i8<-127:127>:f32:1, {0.5:1, 0.25:-2}>>
    %d = stablehlo.add %q, %q : tensor<2x2x!quant.uniform<i8<-127:127>:f32:1, {0.5:1, 0.25:-2}>>
    %b = stablehlo.bitcast_convert %d : (tensor<2x2x!quant.uniform<i8<-127:127>:f32:1, {0.5:1, 0.25:-2}>>) -> tensor<2x2xi8>
    %s = stablehlo.constant dense<[3, 2]> : tensor<2xi64>
    %i = stablehlo.dynamic_iota %s, dim = 0 : (tensor<2xi64>) -> tensor<3x2xi32>
    return %0, %b, %i : tensor<4x2xf32>, tensor<2x2xi8>, tensor<3x2xi32>
  }
}
