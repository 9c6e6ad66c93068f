#pragma once
// What a headless run prints at the end: the config and the metrics, as a table for people or as one
// JSON object for scripts (`--json`).
#include <ostream>

#include <nlohmann/json.hpp>

#include "core/analysis/metrics.h"
#include "core/pipeline/session.h"

namespace pinscope {

struct RunReport {
    SessionStatus status;
    Metrics metrics;
    uint64_t dropped_spans = 0;               // lost because a recorder's ring overflowed
    uint64_t evicted_spans = 0;               // dropped by the store's memory bound
    std::optional<GpuTraceReport> gpu_trace;  // a real GPU: how its spans were recorded, what was lost
};

nlohmann::json report_json(const RunReport& report);
void print_report(std::ostream& out, const RunReport& report);

}  // namespace pinscope
