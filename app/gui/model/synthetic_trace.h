#pragma once
// A synthetic trace of any size with the shape of a real run (train loop, workers, pin thread, H2D,
// kernel and D2H lanes on two streams, counters), for measuring the timeline with a million spans in
// view (`pinscope gui --synthetic-spans 1000000 --frame-stats`) without running a pipeline that long.
#include <cstddef>

#include "core/trace/trace_store.h"

namespace pinscope::gui {

struct SyntheticTraceShape {
    size_t spans = 1'000'000;
    int workers = 4;
    int streams = 2;
    TimeNs batch_period = 60 * kNsPerUs;  // a new batch every period: 1M spans cover ~10 s
    TimeNs origin = 1'000 * kNsPerS;      // far from 0, as steady_clock times are
};

// Exactly shape.spans spans, deterministic. Batches in the middle third are copied from pageable
// memory, so both kinds of copy are on screen.
TraceStore make_synthetic_trace(const SyntheticTraceShape& shape);

}  // namespace pinscope::gui
