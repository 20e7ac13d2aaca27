func.func @main(%x: tensor<4xf32>) -> (tensor<4xi64>, tensor<4xf8E4M3FNUZ>, tensor<4xf8E8M0FNU>, tensor<4xf4E2M1FN>, tensor<4xf6E3M2FN>) {
  %q = stablehlo.uniform_quantize %x : (tensor<4xf32>) -> tensor<4x!quant.uniform<i64<-9223372036854775808:9223372036854775807>:f32, 0.5:-3>>
  %b = stablehlo.bitcast_convert %q : (tensor<4x!quant.uniform<i64:f32, 0.5:-3>>) -> tensor<4xi64>
  %a = stablehlo.convert %x : (tensor<4xf32>) -> tensor<4xf8E4M3FNUZ>
  %e = stablehlo.convert %x : (tensor<4xf32>) -> tensor<4xf8E8M0FNU>
  %f = stablehlo.constant dense<[0.5, -6.0, 0x07, 0x0F]> : tensor<4xf4E2M1FN>
  %g = stablehlo.constant dense<[28.0, 0x3F, 0.0625, -0.0]> : tensor<4xf6E3M2FN>
  return %b, %a, %e, %f, %g : tensor<4xi64>, tensor<4xf8E4M3FNUZ>, tensor<4xf8E8M0FNU>, tensor<4xf4E2M1FN>, tensor<4xf6E3M2FN>
}
