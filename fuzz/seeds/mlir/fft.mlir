func.func public @main(%arg0: tensor<2x8xf32>) -> (tensor<2x5xcomplex<f32>> {jax.result_info = ""}) {
  %0 = stablehlo.fft %arg0, type = RFFT, length = [8] : (tensor<2x8xf32>) -> tensor<2x5xcomplex<f32>>
  %1 = "stablehlo.fft"(%0) {fft_type = #stablehlo<fft_type FFT>, fft_length = array<i64: 5>} : (tensor<2x5xcomplex<f32>>) -> tensor<2x5xcomplex<f32>>
  return %1 : tensor<2x5xcomplex<f32>>
}
