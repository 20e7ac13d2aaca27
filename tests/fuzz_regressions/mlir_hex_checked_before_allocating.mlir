module @ops {
  func.func @main(%x: tensor<2x3xf32>, %i: tensor<3xi32>) -> (tensor<1x2xf32>, tensor<2xi64>) {
    %c = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
    %h = stablehlo.constant dense<"0x0000803F0000004: " >0tensor<2xf32>
    %a = stablehlo.add %x, %c : tensor<00000271086868x3xf32>
    %t = stablehlo.transpose %a, di    %r = %r, %w : tensor<3x2xf32>, tensor<2xi64>
  }
}
