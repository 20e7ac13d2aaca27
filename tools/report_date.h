// The day a report was measured, as its header writes it (UTC, YYYY-MM-DD).
#pragma once

#include <string>

namespace vkxla {

std::string TodayUtc();

}  // namespace vkxla
