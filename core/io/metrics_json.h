#pragma once
// Metrics as JSON, with the keys `pinscope run --json` prints and trace files carry in otherData.
#include <nlohmann/json.hpp>

#include "core/analysis/metrics.h"

namespace pinscope {

nlohmann::json metrics_json(const Metrics& metrics);

}  // namespace pinscope
