#include "core/trace/span_runs.h"

#include <algorithm>
#include <span>

namespace pinscope {
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

void span_runs(const LaneSpans& spans, Interval view, TimeNs min_ns, TimeNs max_ns,
               std::vector<SpanRun>& out) {
    out.clear();
    const std::span<const Span> lane = spans.all();
    if (lane.empty() || view.length() <= 0) return;
    min_ns = std::max<TimeNs>(1, min_ns);
    max_ns = std::max(min_ns, max_ns);
    const size_t begin = std::min(spans.first_touching(view), lane.size());
    const size_t end = first_starting_at(lane, begin, lane.size(), view.end);
    auto wide = [&](const Span& s) { return s.end - s.start >= min_ns; };
    // Folds usually follow each other: the durations summed up to one fold's end are the next one's start.
    size_t summed_to = lane.size() + 1;
    TimeNs summed = 0;

    for (size_t i = begin; i < end;) {
        const Span& span = lane[i];
        if (span.end <= view.start) {  // a longer span before it reaches the view; this one does not
            ++i;
            continue;
        }
        if (wide(span)) {
            out.push_back({i, 1, span.start, span.end, span.end - span.start});
            ++i;
            continue;
        }
        // Fold: swallow every span that starts within min_ns of the fold's end, by binary search, until
        // a gap of at least min_ns, a span wide enough to be drawn on its own, or max_ns. Each step grows
        // the fold by at most about two min_ns, so the cap overshoots by little.
        size_t last = i;
        TimeNs fold_end = span.end;
        while (fold_end - span.start < max_ns) {
            size_t next = next_starting_at(lane, last + 1, end, fold_end + min_ns);
            if (next == last + 1) break;  // a gap: the fold ends here
            if (wide(lane[next - 1])) {   // leave a wide span to be drawn by itself
                if (next - 1 == last + 1) break;
                --next;
            }
            last = next - 1;
            fold_end = std::max(fold_end, lane[last].end);
        }
        const size_t count = last - i + 1;
        TimeNs busy = span.end - span.start;
        if (count > 1) {
            const TimeNs before = i == summed_to ? summed : spans.duration_before(i);
            summed_to = last + 1;
            summed = spans.duration_before(summed_to);
            busy = summed - before;
        }
        out.push_back({i, count, span.start, fold_end, busy});
        i = last + 1;
    }
}

}  // namespace pinscope
