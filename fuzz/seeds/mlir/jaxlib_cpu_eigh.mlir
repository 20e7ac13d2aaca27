func.func @main(%a: tensor<2x3x3xf32>) -> (tensor<2x3x3xf32>, tensor<2x3xf32>, tensor<2x3x3xf32>) {
  %0:3 = stablehlo.custom_call @lapack_ssyevd_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}} : (tensor<2x3x3xf32>) -> (tensor<2x3x3xf32>, tensor<2x3xf32>, tensor<2xi32>)
  %1 = stablehlo.custom_call @Eigh(%a) {backend_config = "0,1,15,0.000010"} : (tensor<2x3x3xf32>) -> tuple<tensor<2x3x3xf32>, tensor<2x3xf32>>
  %v = stablehlo.get_tuple_element %1[0] : (tuple<tensor<2x3x3xf32>, tensor<2x3xf32>>) -> tensor<2x3x3xf32>
  return %0#0, %0#1, %v : tensor<2x3x3xf32>, tensor<2x3xf32>, tensor<2x3x3xf32>
}
