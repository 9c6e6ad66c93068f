#include "core/picture/lane_boxes.h"

#include <algorithm>
#include <cmath>
#include <span>

#include "core/trace/span_runs.h"

namespace pinscope {
namespace {

// Whole pixels from x0 to x1, clamped to the lanes, at least `min_px` wide where the lanes allow.
void snap(LaneBox& box, double x0, double x1, const TimeMapping& m, double min_px) {
    const double left = std::round(m.left), right = std::round(m.right());
    box.x0 = std::clamp(std::round(x0), left, right - 1);
    box.x1 = std::min(right, std::max(std::round(x1), box.x0 + min_px));
}

}  // namespace

std::vector<LaneBox> lane_boxes(const LaneSpans& spans, const TimeMapping& mapping) {
    std::vector<LaneBox> boxes;
    if (spans.empty() || mapping.view.length() <= 0 || mapping.width < 1) return boxes;
    std::vector<SpanRun> runs;
    span_runs(spans, mapping.view, mapping.ns_of_px(kPictureFoldPx), mapping.ns_of_px(kPictureMaxFoldPx),
              runs);
    const std::span<const Span> lane = spans.all();
    for (const SpanRun& run : runs) {
        const Span& first = lane[run.first];
        LaneBox box{0, 0, run.first, run.count, first.kind, first.memory};
        snap(box, mapping.x_of(run.start), mapping.x_of(run.end), mapping, box.folded() ? kPictureFoldPx : 1);
        if (box.folded()) {
            // Over the fold's length, or over the smallest fold's width when it is drawn wider than
            // its spans reach: a fold must not look busier than it was.
            const double covered_ns =
                std::max(kPictureFoldPx / mapping.px_per_ns(), static_cast<double>(run.end - run.start));
            box.occupancy = std::min(1.0, static_cast<double>(run.busy) / std::max(1.0, covered_ns));
        }
        boxes.push_back(box);
    }
    return boxes;
}

}  // namespace pinscope
