#pragma once
// Every batch of a trace as one row: when it started and ended, and how long each stage held it
// (summed over its spans: a batch copied in chunks has several H2D spans). What the CSV export writes,
// for spreadsheets and for the plots people make of a run.
#include <array>
#include <cstdint>
#include <vector>

#include "core/trace/trace_store.h"

namespace pinscope {

struct BatchRow {
    int64_t batch = kNoBatch;
    TimeNs first_start = 0, last_end = 0;              // over every span of the batch
    std::array<TimeNs, kSpanKindCount> stage_ns = {};  // summed durations, by SpanKind
    std::array<uint32_t, kSpanKindCount> spans = {};   // how many spans of each kind
    uint64_t h2d_bytes = 0;
    HostMemory h2d_memory = HostMemory::none;  // where its H2D copies came from
};

// The batches with at least one span ending in [window.start, window.end] (both 0: all), by batch id.
std::vector<BatchRow> batch_rows(const TraceStore& store, Interval window = {0, 0});

}  // namespace pinscope
