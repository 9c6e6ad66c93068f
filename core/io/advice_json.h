#pragma once
// The advisor's advice as JSON: what `pinscope advise --json` prints and `run --advise --json` adds
// under "advice":
//   {"verdict": "highly"|"moderately"|"not"|"transfer", "input_share": 0.34, "transfer_share": 0.02,
//    "verdict_line": "...",
//    "findings": [{"rule", "title", "explanation", "cost",
//                  "evidence": [{"lane", "start_ns", "end_ns", "batch"}],
//                  "fix": {"num_workers": 4}, "fix_text", "metric", "should": "fall"|"rise"}]}
// A reference with no lane (a moment of a counter) has "lane": null; with no batch, "batch": null.
#include <nlohmann/json.hpp>

#include "core/analysis/advisor.h"

namespace pinscope {

nlohmann::json advice_json(const Advice& advice);

}  // namespace pinscope
