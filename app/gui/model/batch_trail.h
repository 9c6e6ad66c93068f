#pragma once
// One batch's way through the pipeline, for the hover highlight: its spans on every lane (fetch on a
// worker, pin, the train loop's wait, H2D, kernel, D2H), in time order, so the view can outline them
// and join consecutive stages with flow lines.
#include <vector>

#include "core/trace/trace_store.h"

namespace pinscope::gui {

struct TrailStop {
    LaneId lane = kNoLane;
    Span span;
};

// Spans of `batch` that start within `reach` of `around` (a batch's stages are close in time), in
// order of start. Each lane is searched outward from `around` and gives up after a bounded number
// of spans, so a hover costs the same with a million spans in the store as with a hundred.
std::vector<TrailStop> batch_trail(const TraceStore& store, int64_t batch, TimeNs around,
                                   TimeNs reach = 2 * kNsPerS);

}  // namespace pinscope::gui
