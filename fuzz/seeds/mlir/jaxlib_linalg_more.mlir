func.func @main(%a: tensor<2x4x3xcomplex<f32>>, %s: tensor<3x3xf64>, %dl: tensor<2x4xf32>, %b: tensor<2x4x2xf32>) -> (tensor<2x3xf32>, tensor<3xcomplex<f64>>, tensor<2x4x2xf32>, tensor<3x3xf64>, tensor<3xf64>) {
  %0:5 = stablehlo.custom_call @lapack_cgesdd_ffi(%a) {mhlo.backend_config = {mode = 83 : ui8}} : (tensor<2x4x3xcomplex<f32>>) -> (tensor<2x4x3xcomplex<f32>>, tensor<2x3xf32>, tensor<2x4x3xcomplex<f32>>, tensor<2x3x3xcomplex<f32>>, tensor<2xi32>)
  %1:8 = stablehlo.custom_call @lapack_dgeev_ffi(%s) {mhlo.backend_config = {compute_left = 78 : ui8, compute_right = 86 : ui8}} : (tensor<3x3xf64>) -> (tensor<3xf64>, tensor<3xf64>, tensor<3x3xcomplex<f64>>, tensor<3x3xcomplex<f64>>, tensor<i32>, tensor<3x3xf64>, tensor<3x3xf64>, tensor<3x3xf64>)
  %w = stablehlo.complex %1#0, %1#1 : tensor<3xcomplex<f64>>
  %2:5 = stablehlo.custom_call @lapack_sgtsv_ffi(%dl, %dl, %dl, %b) : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4x2xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4x2xf32>, tensor<2xi32>)
  %3:3 = stablehlo.custom_call @lapack_dgehrd_ffi(%s) {mhlo.backend_config = {high = 3 : i32, low = 1 : i32}} : (tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<2xf64>, tensor<i32>)
  %4:5 = stablehlo.custom_call @cusolver_sytrd_ffi(%s) {mhlo.backend_config = {lower = true}} : (tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<3xf64>, tensor<2xf64>, tensor<2xf64>, tensor<i32>)
  return %0#1, %w, %2#3, %3#0, %4#1 : tensor<2x3xf32>, tensor<3xcomplex<f64>>, tensor<2x4x2xf32>, tensor<3x3xf64>, tensor<3xf64>
}
