func.func @main(%a: tensor<3x3xcomplex<f32>>, %b: tensor<3x2xcomplex<f32>>) -> (tensor<3x2xcomplex<f32>>, tensor<4x5xf32>) {
  %l = "stablehlo.cholesky"(%a) {lower = true} : (tensor<3x3xcomplex<f32>>) -> tensor<3x3xcomplex<f32>>
  %x = "stablehlo.triangular_solve"(%l, %b) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose ADJOINT>} : (tensor<3x3xcomplex<f32>>, tensor<3x2xcomplex<f32>>) -> tensor<3x2xcomplex<f32>>
  %lo = stablehlo.constant dense<0.0> : tensor<f32>
  %hi = stablehlo.constant dense<1.0> : tensor<f32>
  %shape = stablehlo.constant dense<[4, 5]> : tensor<2xi64>
  %n = stablehlo.rng %lo, %hi, %shape, distribution = NORMAL : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<4x5xf32>
  func.return %x, %n : tensor<3x2xcomplex<f32>>, tensor<4x5xf32>
}
