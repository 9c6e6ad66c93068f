#pragma once
// Export to the Chrome Trace Event JSON format, which Perfetto UI and chrome://tracing open.
//
// What a file holds:
// - pid 1 "host" (worker, pin and train-loop threads, and the counters), pid 2 the device, named after
//   ExportInfo::device_name; each lane is a thread, ordered by LaneInfo::sort_key. A lane whose spans
//   partly overlap is spread over extra threads named "<lane> (2)", "<lane> (3)", ... so slices nest.
// - "X" slices named after the span kind ("fetch", "h2d", ...), args {batch, bytes, memory, gbps}, and
//   "cut" for work the run's end cut short.
// - "C" counter samples, one track per CounterKind, args {"value": v}.
// - flows ("s" -> "t" ... -> "f", id = batch id) linking the spans of one batch in time order.
// - ts and dur in microseconds from the earliest exported time, exact to the nanosecond ("1234.567");
//   otherData.base_time_ns is that time on pinscope's clock.
// The output is streamed; memory grows with a few bytes per span, not with the text.
#include <filesystem>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "core/files/output_file.h"
#include "core/trace/trace_store.h"

namespace pinscope {

struct ExportInfo {
    std::string device_name;
    std::string title = "pinscope";
    nlohmann::json config = nullptr;   // stored as otherData.config
    nlohmann::json metrics = nullptr;  // stored as otherData.metrics
    // Spans that start at or before `end` and end at or after `start`, and the counter samples from the level
    // in force at `start` to `end`. Both 0: everything in the store.
    TimeNs start = 0, end = 0;
};

void write_chrome_trace(std::ostream& out, const TraceStore& store, const ExportInfo& info);

// Writes `file` whole or not at all (core/files/output_file.h). Throws std::runtime_error with a message
// that says what to fix; nothing is left behind then.
void save_chrome_trace(OutputFile& file, const TraceStore& store, const ExportInfo& info);
// The same to a path not checked before: also throws OutputPathError for a path that cannot be written.
void save_chrome_trace(const std::filesystem::path& path, const TraceStore& store, const ExportInfo& info);

}  // namespace pinscope
