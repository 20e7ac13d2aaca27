func.func @main(%a: tensor<2x3x3xf32>, %t: tensor<3x3xf32>, %b: tensor<3x4xf32>) -> (tensor<2x3x3xf32>, tensor<2xi32>, tensor<3x4xf32>, tensor<3x4xf32>) {
  %0:2 = stablehlo.custom_call @lapack_spotrf_ffi(%a) {mhlo.backend_config = {uplo = 76 : ui8}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>]} : (tensor<2x3x3xf32>) -> (tensor<2x3x3xf32>, tensor<2xi32>)
  %alpha = stablehlo.constant dense<2.0> : tensor<f32>
  %1 = stablehlo.custom_call @lapack_strsm_ffi(%t, %b, %alpha) {mhlo.backend_config = {diag = 78 : ui8, side = 76 : ui8, trans_x = 84 : ui8, uplo = 85 : ui8}} : (tensor<3x3xf32>, tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
  %s = stablehlo.constant dense<1> : tensor<i32>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %m = stablehlo.constant dense<3> : tensor<i32>
  %n = stablehlo.constant dense<4> : tensor<i32>
  %2 = stablehlo.custom_call @blas_strsm(%s, %s, %z, %z, %m, %n, %s, %alpha, %t, %b) {api_version = 2 : i32} : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<3x3xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0#0, %0#1, %1, %2 : tensor<2x3x3xf32>, tensor<2xi32>, tensor<3x4xf32>, tensor<3x4xf32>
}
