// samples/elementwise.hlo as StableHLO (what jax.jit(f).lower(x, v).as_text()
// writes): y = clamp(0, exp(x) * 2 - v, 10), and whether y < x.
func.func @main(%x: tensor<2x3xf32>, %v: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi1>) {
  %two = stablehlo.constant dense<2.0> : tensor<2x3xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %ten = stablehlo.constant dense<10.0> : tensor<f32>
  %e = stablehlo.exponential %x : tensor<2x3xf32>
  %m = stablehlo.multiply %e, %two : tensor<2x3xf32>
  %bv = stablehlo.broadcast_in_dim %v, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  %d = stablehlo.subtract %m, %bv : tensor<2x3xf32>
  %y = stablehlo.clamp %zero, %d, %ten : (tensor<f32>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %lt = stablehlo.compare LT, %y, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  return %y, %lt : tensor<2x3xf32>, tensor<2x3xi1>
}
