// NumPy .npz archives (np.savez, np.savez_compressed): the .npy members in
// archive order, read with libzip.
#pragma once

#include <string>
#include <vector>

#include "vkxla/status.h"

namespace vkxla {

struct NpzMember {
  std::string name;   // "arr_0.npy", "x.npy"
  std::string bytes;  // the member's .npy file
};

StatusOr<std::vector<NpzMember>> ReadNpz(const std::string& path);

}  // namespace vkxla
