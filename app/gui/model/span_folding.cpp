#include "app/gui/model/span_folding.h"

#include <algorithm>

namespace pinscope::gui {
namespace {

// First index in [from, to) whose span starts at or after `time`.
size_t first_starting_at(std::span<const Span> lane, size_t from, size_t to, TimeNs time) {
    auto it = std::lower_bound(lane.begin() + static_cast<std::ptrdiff_t>(from),
                               lane.begin() + static_cast<std::ptrdiff_t>(to), time,
                               [](const Span& s, TimeNs t) { return s.start < t; });
    return static_cast<size_t>(it - lane.begin());
}

// The same, galloping from `from` (1, 2, 4, ... spans ahead) before the binary search: the answer is
// usually a few spans or pixels away, and galloping touches memory near `from` instead of jumping
// across a million-span lane, which is what made folding cost cache misses rather than pixels.
size_t next_starting_at(std::span<const Span> lane, size_t from, size_t to, TimeNs time) {
    size_t low = from, step = 1;
    while (low < to && lane[low].start < time) {
        const size_t probe = std::min(to, from + step);
        if (probe >= to || lane[probe].start >= time) return first_starting_at(lane, low + 1, probe, time);
        low = probe;
        step *= 2;
    }
    return low;
}

}  // namespace

void fold_lane(const LaneSpans& spans, const PixelMapping& mapping, std::vector<LaneDrawItem>& out,
               double min_px, double max_px) {
    out.clear();
    const Interval range = mapping.range;
    const std::span<const Span> lane = spans.all();
    if (lane.empty() || range.length() <= 0) return;
    const size_t begin = std::min(spans.first_touching(range), lane.size());
    const size_t end = first_starting_at(lane, begin, lane.size(), range.end);
    const TimeNs fold_ns = std::max<TimeNs>(1, mapping.ns_of_px(min_px));
    const TimeNs max_fold_ns = std::max<TimeNs>(fold_ns, mapping.ns_of_px(max_px));
    auto wide = [&](const Span& s) { return s.end - s.start >= fold_ns; };

    for (size_t i = begin; i < end;) {
        const Span& span = lane[i];
        LaneDrawItem item{mapping.x_of(span.start), mapping.x_of(span.end), i, 1, span.kind, span.memory};
        if (span.end <= range.start) {  // a longer span before it reaches the view; this one does not
            ++i;
            continue;
        }
        if (wide(span)) {
            out.push_back(item);
            ++i;
            continue;
        }
        // Fold: swallow every span that starts within fold_ns of the fold's end, by binary search,
        // until a gap of at least fold_ns, a span wide enough to be drawn on its own, or max_px.
        // Each step grows the fold by at most about two fold widths, so the cap overshoots by little.
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
        item.count = last - i + 1;
        item.x1 = std::max(mapping.x_of(fold_end), item.x0 + (item.folded() ? min_px : 0));
        if (item.folded())
            item.occupancy =
                std::min(1.0, static_cast<double>(spans.duration_sum(i, last + 1)) /
                                  static_cast<double>(std::max<TimeNs>(1, fold_end - span.start)));
        out.push_back(item);
        i = last + 1;
    }
}

}  // namespace pinscope::gui
