// The conformance results of every device as one HTML page: a summary chart
// (SVG) and a matrix of op families × devices, each cell coloured by its
// worst outcome: red for a failure, grey when all skipped, else by the
// largest ULP distance of the passed cases (exact to many ULP).
#pragma once

#include <string>
#include <vector>

#include "tools/conformance/conformance_report.h"

namespace vkxla {

std::string HtmlReport(const std::vector<ConformanceCase>& cases, const std::vector<DeviceRun>& runs,
                       const std::string& date);

}  // namespace vkxla
