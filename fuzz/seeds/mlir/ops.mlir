module @ops {
  func.func @main(%x: tensor<2x3xf32>, %i: tensor<3xi32>) -> (tensor<3x2xf32>, tensor<2xi64>) {
    %c = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
    %h = stablehlo.constant dense<"0x0000803F00000040"> : tensor<2xf32>
    %a = stablehlo.add %x, %c : tensor<2x3xf32>
    %t = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %b = stablehlo.broadcast_in_dim %i, dims = [0] : (tensor<3xi32>) -> tensor<3x2xi32>
    %f = stablehlo.convert %b : (tensor<3x2xi32>) -> tensor<3x2xf32>
    %m = stablehlo.multiply %t, %f : tensor<3x2xf32>
    %s = stablehlo.slice %i [0:2] : (tensor<3xi32>) -> tensor<2xi32>
    %w = stablehlo.convert %s : (tensor<2xi32>) -> tensor<2xi64>
    %d = stablehlo.dot_general %x, %c, contracting_dims = [1] x [1], precision = [DEFAULT, HIGHEST] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x2xf32>
    %r = stablehlo.reduce_precision %m, format = e5m10 : tensor<3x2xf32>
    return %r, %w : tensor<3x2xf32>, tensor<2xi64>
  }
}
