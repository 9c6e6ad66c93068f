#pragma once
// How a timeline of any kind (the app's, a picture's) draws a lane without touching every span (Tracy's
// approach): cull the lane to the view by binary search, keep a span at least `min_ns` long as its own
// run, and fold each run of shorter spans into one, until a gap of at least `min_ns`, a span long enough
// to stand alone, or a fold about `max_ns` long. Each run costs a few binary searches, so the work grows
// with the pixels drawn, not with the spans in view: ten million spans give a few hundred runs.
#include <cstddef>
#include <vector>

#include "core/trace/interval.h"
#include "core/trace/lane_spans.h"

namespace pinscope {

struct SpanRun {
    size_t first = 0;  // index in LaneSpans::all() of its first span
    size_t count = 1;  // > 1: a fold of spans too short to draw one by one
    TimeNs start = 0;  // of the first span
    TimeNs end = 0;    // the latest end of its spans
    TimeNs busy = 0;   // its spans' summed durations (for a fold: how busy it kept the lane)

    bool folded() const { return count > 1; }
};

// Replaces `out` with the runs of `lane` that touch `view`, in order of start.
void span_runs(const LaneSpans& lane, Interval view, TimeNs min_ns, TimeNs max_ns, std::vector<SpanRun>& out);

}  // namespace pinscope
