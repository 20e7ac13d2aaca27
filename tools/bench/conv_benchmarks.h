// Convolution rows: a dense 3x3 56x56x64->64 convolution (batch 1 and 8)
// against a matmul of the same flops timed alternately with it (ratio =
// the matmul's time / ours, target >= 0.7), a depthwise 3x3 over
// 112x112x32 against the stream kernel (bytes of input and output, target
// >= 0.6), and MobileNet-v2 (224x224, width 1.0, batch 1) end to end from
// samples/mobilenet_v2_224_parameters.hlo with random weights: images per
// second and the share of device time in each kernel kind.
#pragma once

#include <string>

#include "runtime/device.h"
#include "tools/bench/bench_report.h"

namespace vkxla {

// `samples`: the directory holding mobilenet_v2_224_parameters.hlo (the
// row says so when it is not there).
Status RunConvBenchmarks(Device& device, const std::string& samples, BenchReport& report);

}  // namespace vkxla
