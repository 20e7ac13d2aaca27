#loc = loc(unknown)
#loc1 = loc("/home/u/model.py":3:4)
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=1, "y"=1]>
  func.func public @main(%arg0: tensor<2x3xf32> {jax.arg_info = "x", mhlo.sharding = "{replicated}", sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>} loc("x"), %arg1: tensor<3xf32> {jax.buffer_donor = true, tf.aliasing_output = 0 : i32} loc(#loc1)) -> (tensor<2xf32> {jax.result_info = ""}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32> loc(#loc)
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32> loc(#loc3)
    %1 = stablehlo.multiply %arg0, %0 {mhlo.frontend_attributes = {_xla_compute_type = "host"}} : tensor<2x3xf32> loc(#loc4)
    %2 = sdy.sharding_constraint %1 <@mesh, [{"x"}, {}]> : tensor<2x3xf32> loc(#loc4)
    %3 = stablehlo.reduce(%2 init: %cst) across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
     reducer(%a: tensor<f32> loc(unknown), %b: tensor<f32> loc(unknown))  {
      %s = stablehlo.add %a, %b : tensor<f32> loc(#loc5)
      stablehlo.return %s : tensor<f32> loc(#loc5)
    } loc(#loc5)
    %4 = "stablehlo.reduce"(%3, %cst) <{dimensions = array<i64: 0>}> ({
    ^bb0(%p: tensor<f32> loc(fused[#loc1, #loc2]), %q: tensor<f32> loc(callsite(#loc1 at #loc2))):
      %m = stablehlo.maximum %p, %q : tensor<f32> loc("name"(#loc3))
      stablehlo.return %m : tensor<f32> loc(#loc)
    }) : (tensor<2xf32>, tensor<f32>) -> tensor<f32> loc(#loc6)
    %5 = call @twice(%4) : (tensor<f32>) -> tensor<f32> loc(#loc)
    %6 = stablehlo.broadcast_in_dim %5, dims = [] : (tensor<f32>) -> tensor<2xf32>
    return %6 : tensor<2xf32> loc(#loc)
  } loc(#loc)
  func.func private @twice(%x: tensor<f32>) -> tensor<f32> attributes {mhlo.frontend_attributes = {inlineable = "true"}} {
    %y = stablehlo.add %x, %x : tensor<f32>
    return %y : tensor<f32>
  }
} loc(#loc)
#loc2 = loc("jit(f)/jit(main)/mul"(#loc1))
#loc3 = loc(fused<"x">[#loc1, #loc2])
#loc4 = loc(callsite("f"("a.py":1:2) at "g"("b.py":3:4)))
#loc5 = loc("reduce")
#loc6 = loc("a(b)\"c":1:2)
