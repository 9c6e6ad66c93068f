#include "core/picture/lane_boxes.h"

#include <algorithm>
#include <cmath>
#include <span>

namespace pinscope {
namespace {

// The first index in [from, to) whose span starts at or after `time`, galloping from `from` (1, 2, 4,
// ... spans ahead) before the binary search: the answer is usually near, and galloping reads memory
// near `from` instead of jumping across a lane of millions of spans.
size_t next_starting_at(std::span<const Span> lane, size_t from, size_t to, TimeNs time) {
    size_t low = from, step = 1;
    while (low < to && lane[low].start < time) {
        const size_t probe = std::min(to, from + step);
        if (probe >= to || lane[probe].start >= time) {
            const auto begin = lane.begin() + static_cast<std::ptrdiff_t>(low + 1);
            const auto end = lane.begin() + static_cast<std::ptrdiff_t>(probe);
            return static_cast<size_t>(
                std::lower_bound(begin, end, time, [](const Span& s, TimeNs t) { return s.start < t; }) -
                lane.begin());
        }
        low = probe;
        step *= 2;
    }
    return low;
}

// Whole pixels from x0 to x1, clamped to the lanes, at least `min_px` wide where the lanes allow.
void snap(LaneBox& box, double x0, double x1, const TimeMapping& m, double min_px) {
    const double left = std::round(m.left), right = std::round(m.right());
    box.x0 = std::clamp(std::round(x0), left, right - 1);
    box.x1 = std::min(right, std::max(std::round(x1), box.x0 + min_px));
}

}  // namespace

std::vector<LaneBox> lane_boxes(const LaneSpans& spans, const TimeMapping& mapping) {
    std::vector<LaneBox> boxes;
    const Interval view = mapping.view;
    const std::span<const Span> lane = spans.all();
    if (lane.empty() || view.length() <= 0 || mapping.width < 1) return boxes;
    const size_t begin = spans.first_touching(view);
    const size_t end = begin + spans.touching(view).size();
    const TimeNs fold_ns = std::max<TimeNs>(1, mapping.ns_of_px(kPictureFoldPx));
    const TimeNs max_fold_ns = std::max<TimeNs>(fold_ns, mapping.ns_of_px(kPictureMaxFoldPx));
    const auto wide = [&](const Span& s) { return s.duration() >= fold_ns; };

    for (size_t i = begin; i < end;) {
        const Span& span = lane[i];
        LaneBox box{0, 0, i, 1, span.kind, span.memory};
        if (span.end < view.start) {  // a longer span before it reaches the view; this one does not
            ++i;
            continue;
        }
        if (wide(span)) {
            snap(box, mapping.x_of(span.start), mapping.x_of(span.end), mapping, 1);
            boxes.push_back(box);
            ++i;
            continue;
        }
        // Fold: swallow every span that starts within fold_ns of the fold's end, until a gap of at least
        // fold_ns, a span wide enough to draw by itself, or the fold's largest width. A step grows the
        // fold by at most two fold widths, so a fold costs a few searches.
        size_t last = i;
        TimeNs fold_end = span.end;
        while (fold_end - span.start < max_fold_ns) {
            size_t next = next_starting_at(lane, last + 1, end, fold_end + fold_ns);
            if (next == last + 1) break;  // a gap: the fold ends here
            if (wide(lane[next - 1])) {   // leave a wide span to be drawn by itself
                if (next - 1 == last + 1) break;
                --next;
            }
            last = next - 1;
            fold_end = std::max(fold_end, lane[last].end);
        }
        box.count = last - i + 1;
        snap(box, mapping.x_of(span.start), mapping.x_of(fold_end), mapping,
             box.folded() ? kPictureFoldPx : 1);
        if (box.folded()) {
            // Over the fold's length, or over the smallest fold's width when it is drawn wider than
            // its spans reach: a fold must not look busier than it was.
            const double covered_ns =
                std::max(kPictureFoldPx / mapping.px_per_ns(), static_cast<double>(fold_end - span.start));
            box.occupancy = std::min(
                1.0, static_cast<double>(spans.duration_sum(i, last + 1)) / std::max(1.0, covered_ns));
        }
        boxes.push_back(box);
        i = last + 1;
    }
    return boxes;
}

}  // namespace pinscope
