#pragma once
// Per frame and per lane, what the timeline draws: the lane's runs in view (core/trace/span_runs: a
// span wide enough to see on its own, or a fold of narrower ones that carries a count), placed in
// pixels. The work grows with the pixels of the lane, not with the spans in view (a million spans fold
// into a few hundred boxes).
#include <cstddef>
#include <span>
#include <vector>

#include "app/gui/model/timeline_viewport.h"
#include "core/trace/lane_spans.h"
#include "core/trace/span.h"

namespace pinscope::gui {

struct LaneDrawItem {
    double x0 = 0, x1 = 0;  // pixels from the lane's left edge; not clamped (see PixelMapping::clamp_x)
    size_t first = 0;       // index of the first span in the lane
    size_t count = 1;       // > 1: a fold of spans too narrow to draw one by one
    SpanKind kind = SpanKind::fetch;       // of the first span
    HostMemory memory = HostMemory::none;  // of the first span
    // For a fold, how busy its spans kept the lane from its start to its end (their summed durations
    // over its length, at most 1): a fold is drawn this full, so a lane at 30% never looks solid.
    double occupancy = 1;

    bool folded() const { return count > 1; }
};

// Spans this close to the previous one's end join its fold; also the narrowest drawn span.
constexpr double kFoldPx = 3;
// A fold stops growing at about this width and the next one starts: a lane that is one long run of
// tiny spans still shows where its kind or its memory (pinned, pageable) changes, and every fold is
// wide enough to carry its count.
constexpr double kMaxFoldPx = 48;

// Replaces `out` with the items of `lane` that the mapping's range shows, in order; an item's `first`
// indexes into lane.all(). A span is drawn on its own when it is at least `min_px` wide;
// runs of narrower spans whose gaps are under `min_px` become one folded item from the first start to the
// latest end, at most about `max_px` wide.
void fold_lane(const LaneSpans& lane, const PixelMapping& mapping, std::vector<LaneDrawItem>& out,
               double min_px = kFoldPx, double max_px = kMaxFoldPx);

}  // namespace pinscope::gui
