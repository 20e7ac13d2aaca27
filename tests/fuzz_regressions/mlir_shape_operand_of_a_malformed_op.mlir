func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c = stablehlo.constant dense<2> : tensor<i32>
  %r = stablehlo.reshape h2 : (tensor<i32>) -> tensor<1xi32>
  %b = stablehlo.dynamic_broadcast_in_dim %x, %r, dims = [0] : (tensor<?xf32>, tensor<1xi32>) -> tensor<?xf32>
  return %b : tensor<?xf32>
}
