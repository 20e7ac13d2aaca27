// Canned devices for planning without one: what lavapipe, a desktop GPU and
// a phone GPU report. Plan tests read the decisions for each (as IREE's
// per-vendor configuration tests do); the phone profile is the floor that
// every plan must fit.
#pragma once

#include "plan/target_features.h"

namespace vkxla {

// Mesa's lavapipe on x86-64 (llvmpipe, 256-bit vectors): a CPU driver with
// every type, subgroups of 8, f32 atomic add, 128 MiB per binding.
TargetFeatures LavapipeTarget();
// A desktop GPU (NVIDIA-like): subgroups of 32, 48 KiB of shared memory,
// f64, i64, f32 atomic add and f16 cooperative matrices.
TargetFeatures DesktopGpuTarget();
// A phone GPU (Mali/Adreno-like): no f64, i64 or float atomics, subgroups of 16, 256
// invocations per workgroup, 16 KiB of shared memory, 128 MiB per binding,
// 64-byte offset alignment.
TargetFeatures PhoneTarget();

}  // namespace vkxla
