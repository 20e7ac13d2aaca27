func.func public @main(%x: tensor<2x3xf32>, %i: tensor<2x3xi32>, %h: tensor<4xi32>) -> (tensor<2xf32>, tensor<2xi32>, tensor<2x3xf32>, tensor<4xi32>) {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %sum = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %m:2 = stablehlo.reduce(%x init: %ninf), (%i init: %c0) across dimensions = [1] : (tensor<2x3xf32>, tensor<2x3xi32>, tensor<f32>, tensor<i32>) -> (tensor<2xf32>, tensor<2xi32>)
   reducer(%a: tensor<f32>, %b: tensor<f32>) (%ai: tensor<i32>, %bi: tensor<i32>)  {
    %gt = stablehlo.compare  GT, %a, %b,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %v = stablehlo.select %gt, %a, %b : tensor<i1>, tensor<f32>
    %w = stablehlo.select %gt, %ai, %bi : tensor<i1>, tensor<i32>
    stablehlo.return %v, %w : tensor<f32>, tensor<i32>
  }
  %s = "stablehlo.sort"(%x) <{dimension = 1 : i64, is_stable = true}> ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %lt = stablehlo.compare  LT, %p, %q,  TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %e = chlo.erf_inv %s : tensor<2x3xf32> -> tensor<2x3xf32>
  %t = "stablehlo.einsum"(%e, %x) {einsum_config = "ab,cb->ac"} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x2xf32>
  %z2 = stablehlo.constant dense<0.0> : tensor<2xf32>
  %y:2 = chlo.scan(%x) inits(%z2) dimension=1 attributes {is_reverse = true} {
  ^bb0(%r: tensor<2xf32>, %acc: tensor<2xf32>):
    %n = stablehlo.add %r, %acc : tensor<2xf32>
    stablehlo.return %n, %n : tensor<2xf32>, tensor<2xf32>
  } : (tensor<2x3xf32>, tensor<2xf32>) -> (tensor<2x3xf32>, tensor<2xf32>)
  %hi = "chlo.mulhi"(%h, %h) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  func.return %sum, %m#1, %y#0, %hi : tensor<2xf32>, tensor<2xi32>, tensor<2x3xf32>, tensor<4xi32>
}
