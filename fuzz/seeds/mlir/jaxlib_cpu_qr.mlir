func.func @main(%a: tensor<2x4x3xf32>) -> (tensor<2x4x3xf32>, tensor<2x4x3xf32>) {
  %0:2 = stablehlo.custom_call @lapack_sgeqrf_ffi(%a) : (tensor<2x4x3xf32>) -> (tensor<2x4x3xf32>, tensor<2x3xf32>)
  %q = stablehlo.custom_call @lapack_sorgqr_ffi(%0#0, %0#1) : (tensor<2x4x3xf32>, tensor<2x3xf32>) -> tensor<2x4x3xf32>
  %1 = stablehlo.custom_call @Qr(%a) : (tensor<2x4x3xf32>) -> tuple<tensor<2x4x3xf32>, tensor<2x3xf32>>
  %r = stablehlo.get_tuple_element %1[0] : (tuple<tensor<2x4x3xf32>, tensor<2x3xf32>>) -> tensor<2x4x3xf32>
  %t = stablehlo.get_tuple_element %1[1] : (tuple<tensor<2x4x3xf32>, tensor<2x3xf32>>) -> tensor<2x3xf32>
  %p = stablehlo.custom_call @ProductOfElementaryHouseholderReflectors(%r, %t) : (tensor<2x4x3xf32>, tensor<2x3xf32>) -> tensor<2x4x3xf32>
  return %q, %p : tensor<2x4x3xf32>, tensor<2x4x3xf32>
}
