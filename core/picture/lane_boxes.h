#pragma once
// What a picture draws of one lane: the lane's runs in view (core/trace/span_runs, as the app's
// timeline folds them, here with a narrower fold cap), snapped to whole pixels, a fold drawn as full as
// its spans kept the lane busy. The work grows with the picture's pixels, not with the spans: a lane of
// ten million spans gives a few hundred boxes.
#include <cstddef>
#include <vector>

#include "core/trace/interval.h"
#include "core/trace/lane_spans.h"

namespace pinscope {

// Time to x and back over the lanes' part of the picture. Positions are computed relative to the
// view's start in double, so nanosecond timestamps of a long capture keep their precision.
struct TimeMapping {
    Interval view;
    double left = 0, width = 1;  // pixels

    double right() const { return left + width; }
    double px_per_ns() const { return width / static_cast<double>(view.length()); }
    double x_of(TimeNs t) const { return left + static_cast<double>(t - view.start) * px_per_ns(); }
    TimeNs ns_of_px(double px) const { return static_cast<TimeNs>(px / px_per_ns()); }
};

struct LaneBox {
    double x0 = 0, x1 = 0;            // whole pixels inside the mapping's [left, right]; at least 1 px wide
    size_t first = 0;                 // index in LaneSpans::all() of the first span it draws
    size_t count = 1;                 // > 1: a fold of spans too narrow to draw one by one
    SpanKind kind = SpanKind::fetch;  // of the first span
    HostMemory memory = HostMemory::none;  // of the first span
    // For a fold: the summed durations of its spans over the time its box covers, at most 1. The box is
    // filled from the bottom to this fraction of its height, so a lane busy 30% never looks solid.
    double occupancy = 1;

    bool folded() const { return count > 1; }
};

// Spans narrower than this are folded; a fold is at least this wide.
constexpr double kPictureFoldPx = 3;
// A fold stops growing at about this width, so a long run of tiny spans still shows how busy each part
// of it was, and where its kind or memory changes.
constexpr double kPictureMaxFoldPx = 12;

// The boxes of `lane` in the mapping's view, in order of start.
std::vector<LaneBox> lane_boxes(const LaneSpans& lane, const TimeMapping& mapping);

}  // namespace pinscope
