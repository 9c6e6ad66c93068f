#pragma once
// What a headless run prints at the end: the config and the metrics, as a table for people or as one
// JSON object for scripts (`--json`).
#include <ostream>
#include "core/analysis/profiler_steps.h"

#include <nlohmann/json.hpp>

#include "core/analysis/metrics.h"
#include "core/pipeline/session.h"

namespace pinscope {

// Where a report's run came from when it was read from a capture file.
struct CaptureSource {
    std::string file, created, writer_version;
    size_t spans = 0;
    uint64_t file_bytes = 0;
    bool has_config = true;  // false for a trace no pipeline of pinscope's ran: its knobs are not known
    // A part read (stats --range): seconds from the capture's start, and the spans of the whole file.
    std::optional<std::pair<double, double>> range_s;
    uint64_t spans_in_file = 0;
    // An imported trace: where it came from, what the import skipped, its profiler steps.
    std::string source, import_note;
    ProfilerSteps steps;
    int samples_per_batch = 0;
};

struct RunReport {
    SessionStatus status;
    Metrics metrics;
    uint64_t dropped_spans = 0;               // lost because a recorder's ring overflowed
    uint64_t evicted_spans = 0;               // dropped by the store's memory bound
    std::optional<GpuTraceReport> gpu_trace;  // a real GPU: how its spans were recorded, what was lost
    std::optional<CaptureSource> capture;     // a report of a capture (`pinscope stats`), not of a live run
};

nlohmann::json report_json(const RunReport& report);
void print_report(std::ostream& out, const RunReport& report);

}  // namespace pinscope
