func.func @gather_scatter() {
  %operand = stablehlo.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi64>
  %indices = stablehlo.constant dense<[[2], [0]]> : tensor<2x1xi64>
  %g = "stablehlo.gather"(%operand, %indices) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 2>, indices_are_sorted = false} : (tensor<3x2xi64>, tensor<2x1xi64>) -> tensor<2x2xi64>
  %r:2 = "chlo.ragged_dot"(%operand, %operand, %indices) {ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>, precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>]} : (tensor<3x2xi64>, tensor<3x2xi64>, tensor<2x1xi64>) -> (tensor<3x2xi64>, tensor<3x2xi64>)
  check.expect_eq_const %g, dense<[[5, 6], [1, 2]]> : tensor<2x2xi64>
  check.expect_almost_eq_const %g, dense<[[5, 6], [1, 2]]> : tensor<2x2xi64> {tolerance = 0.1 : f64}
  func.return
}
