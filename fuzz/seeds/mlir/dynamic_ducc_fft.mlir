module @jit_func {
  func.func public @main(%arg0: tensor<3x4xf32>) -> tensor<3x4xcomplex<f32>> {
    %0 = stablehlo.convert %arg0 : (tensor<3x4xf32>) -> tensor<3x4xcomplex<f32>>
    %shape = stablehlo.constant dense<[3, 4]> : tensor<2xi32>
    %strides = stablehlo.constant dense<[4, 1]> : tensor<2xi32>
    %scale = stablehlo.constant dense<1.0> : tensor<1xf64>
    %d = stablehlo.constant dense<[20, 0, 0, 0, 0, 0, 14, 0, 16, 0, 8, 0, 0, 0, 0, 0, 12, 0, 7, 0, 14, 0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0]> : tensor<44xui8>
    %1 = stablehlo.custom_call @dynamic_ducc_fft(%d, %0, %shape, %strides, %strides, %scale, %shape) {api_version = 2 : i32, indices_of_shape_operands = dense<6> : tensor<1xi64>} : (tensor<44xui8>, tensor<3x4xcomplex<f32>>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<1xf64>, tensor<2xi32>) -> tensor<3x4xcomplex<f32>>
    return %1 : tensor<3x4xcomplex<f32>>
  }
}
