func.func private @gt(%a: tensor<f32>, %b: tensor<f32>, %i: tensor<i32>, %j: tensor<i32>) -> tensor<i1> {
  %c = stablehlo.compare GT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
  return %c : tensor<i1>
}
func.func private @add(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %s = stablehlo.add %a, %b : tensor<f32>
  return %s : tensor<f32>
}
func.func @main(%x: tensor<?x5xf32>) -> (tensor<?x2xf32>, tensor<?x2xi32>, tensor<?x5xf32>, tensor<2x2xf32>) {
  %b = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x5xf32>) -> tensor<i32>
  %k = stablehlo.constant dense<2> : tensor<i32>
  %0:2 = stablehlo.custom_call @stablehlo.dynamic_top_k(%x, %k) {api_version = 2 : i32} : (tensor<?x5xf32>, tensor<i32>) -> (tensor<?x2xf32>, tensor<?x2xi32>)
  %b1 = stablehlo.reshape %b : (tensor<i32>) -> tensor<1xi32>
  %one = stablehlo.constant dense<1> : tensor<1xi32>
  %window = stablehlo.concatenate %b1, %one, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %ones = stablehlo.constant dense<1> : tensor<2xi32>
  %low = stablehlo.subtract %b1, %one : tensor<1xi32>
  %zero = stablehlo.constant dense<0> : tensor<3xi32>
  %pad1 = stablehlo.concatenate %low, %zero, dim = 0 : (tensor<1xi32>, tensor<3xi32>) -> tensor<4xi32>
  %pad = stablehlo.reshape %pad1 : (tensor<4xi32>) -> tensor<2x2xi32>
  %init = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %1 = stablehlo.custom_call @stablehlo.dynamic_reduce_window(%x, %init, %window, %ones, %ones, %ones, %pad) {api_version = 2 : i32, called_computations = [@add]} : (tensor<?x5xf32>, tensor<f32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> tensor<?x5xf32>
  %v = stablehlo.constant dense<[[1.0, 4.0, 2.0], [3.0, 0.0, 5.0]]> : tensor<2x3xf32>
  %i = stablehlo.iota dim = 1 : tensor<2x3xi32>
  %m = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %z = stablehlo.constant dense<-1> : tensor<i32>
  %2:2 = stablehlo.custom_call @ApproxTopK(%v, %i, %m, %z) {called_computations = [@gt], mhlo.backend_config = {aggregate_to_topk = true, recall_target = 0.95 : f32, reduction_dim = 1 : i64, top_k = 2 : i64}} : (tensor<2x3xf32>, tensor<2x3xi32>, tensor<f32>, tensor<i32>) -> (tensor<2x2xf32>, tensor<2x2xi32>)
  %3 = stablehlo.custom_call @AllocateBuffer() : () -> tensor<2x2xf32>
  %4 = stablehlo.add %2#0, %3 : tensor<2x2xf32>
  return %0#0, %0#1, %1, %4 : tensor<?x2xf32>, tensor<?x2xi32>, tensor<?x5xf32>, tensor<2x2xf32>
}
