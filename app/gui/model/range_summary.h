#pragma once
// What a range selected on the timeline shows: how busy each lane was inside it, and the pipeline's
// metrics (GPU busy, copy/compute overlap, stall) over exactly that range.
#include <vector>

#include "core/analysis/intervals.h"
#include "core/analysis/metrics.h"

namespace pinscope::gui {

struct LaneBusy {
    LaneId lane = kNoLane;
    double busy = 0;   // |union of the lane's spans within the range| / range length
    size_t spans = 0;  // spans that overlap the range
};

struct RangeSummary {
    Interval range;
    std::vector<LaneBusy> lanes;  // in store lane order, lanes with spans in the range only
    Metrics metrics;
};

RangeSummary summarize_range(const TraceStore& store, Interval range, int batch_size, double slow_motion = 1);

}  // namespace pinscope::gui
