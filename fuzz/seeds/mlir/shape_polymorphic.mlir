module @jit_g attributes {jax.uses_shape_polymorphism = true, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<?x3xf32>, %arg1: tensor<3x?xf32>) -> (tensor<?x?xf32>, tensor<?xf32>, tensor<?x2xf32>) {
    %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
    %1 = stablehlo.convert %0 : (tensor<i32>) -> tensor<i64>
    %2 = stablehlo.get_dimension_size %arg1, dim = 1 : (tensor<3x?xf32>) -> tensor<i32>
    %3 = stablehlo.convert %2 : (tensor<i32>) -> tensor<i64>
    %4:3 = call @_wrapped_jax_export_main(%1, %3, %arg0, %arg1) : (tensor<i64>, tensor<i64>, tensor<?x3xf32>, tensor<3x?xf32>) -> (tensor<?x?xf32>, tensor<?xf32>, tensor<?x2xf32>)
    return %4#0, %4#1, %4#2 : tensor<?x?xf32>, tensor<?xf32>, tensor<?x2xf32>
  }
  func.func private @_wrapped_jax_export_main(%arg0: tensor<i64> {jax.global_constant = "b"}, %arg1: tensor<i64> {jax.global_constant = "n"}, %arg2: tensor<?x3xf32>, %arg3: tensor<3x?xf32>) -> (tensor<?x?xf32>, tensor<?xf32>, tensor<?x2xf32>) {
    %0 = stablehlo.dot_general %arg2, %arg3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<?x3xf32>, tensor<3x?xf32>) -> tensor<?x?xf32>
    %1 = stablehlo.tanh %0 : tensor<?x?xf32>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.convert %arg0 : (tensor<i64>) -> tensor<i32>
    %3 = stablehlo.reshape %2 : (tensor<i32>) -> tensor<1xi32>
    %4 = stablehlo.dynamic_broadcast_in_dim %cst, %3, dims = [] : (tensor<f32>, tensor<1xi32>) -> tensor<?xf32>
    %5:2 = stablehlo.while(%iterArg = %c, %iterArg_0 = %4) : tensor<i64>, tensor<?xf32>
     cond {
      %10 = stablehlo.compare  LT, %iterArg, %arg1,  SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %10 : tensor<i1>
    } do {
      %c_1 = stablehlo.constant dense<0> : tensor<i64>
      %10 = stablehlo.dynamic_slice %1, %c_1, %iterArg, sizes = [1, 1] : (tensor<?x?xf32>, tensor<i64>, tensor<i64>) -> tensor<1x1xf32>
      %11 = stablehlo.reshape %10 : (tensor<1x1xf32>) -> tensor<f32>
      %12 = stablehlo.dynamic_broadcast_in_dim %11, %3, dims = [] : (tensor<f32>, tensor<1xi32>) -> tensor<?xf32>
      %13 = stablehlo.add %iterArg_0, %12 : tensor<?xf32>
      %c_2 = stablehlo.constant dense<1> : tensor<i64>
      %14 = stablehlo.add %iterArg, %c_2 : tensor<i64>
      stablehlo.return %14, %13 : tensor<i64>, tensor<?xf32>
    }
    %c_3 = stablehlo.constant dense<3> : tensor<i64>
    %6 = stablehlo.multiply %arg0, %c_3 : tensor<i64>
    %c_4 = stablehlo.constant dense<2> : tensor<i64>
    %7 = stablehlo.divide %6, %c_4 : tensor<i64>
    %8 = stablehlo.convert %7 : (tensor<i64>) -> tensor<i32>
    %9 = stablehlo.reshape %8 : (tensor<i32>) -> tensor<1xi32>
    %c_5 = stablehlo.constant dense<2> : tensor<1xi32>
    %10 = stablehlo.concatenate %9, %c_5, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %11 = stablehlo.dynamic_reshape %arg2, %10 : (tensor<?x3xf32>, tensor<2xi32>) -> tensor<?x2xf32>
    %c_6 = stablehlo.constant dense<[1, 0]> : tensor<2xi32>
    %c_7 = stablehlo.constant dense<1> : tensor<2xi32>
    %12 = stablehlo.real_dynamic_slice %11, %c_6, %10, %c_7 : (tensor<?x2xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<?x2xf32>
    return %1, %5#1, %12 : tensor<?x?xf32>, tensor<?xf32>, tensor<?x2xf32>
  }
}
