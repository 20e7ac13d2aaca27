func.func @main(%s: tensor<2xui64>) -> (tensor<2xui64>, tensor<3x5xui32>) {
  %0:2 = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<3x5xui32>)
  %1:2 = "stablehlo.rng_bit_generator"(%0#0) {rng_algorithm = #stablehlo<rng_algorithm PHILOX>} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<3x5xui32>)
  func.return %1#0, %1#1 : tensor<2xui64>, tensor<3x5xui32>
}
