#include "core/analysis/intervals.h"

#include <algorithm>

namespace pinscope {

namespace {

// Appends `next` (whose start is not before the last interval's start) to `out`, merging it with the
// last interval when they overlap or touch.
void append_merged(IntervalList& out, Interval next) {
    if (next.end <= next.start) return;
    if (!out.empty() && next.start <= out.back().end) {
        out.back().end = std::max(out.back().end, next.end);
        return;
    }
    out.push_back(next);
}

bool by_start(const Interval& a, const Interval& b) {
    return a.start < b.start;
}

}  // namespace

IntervalList normalized(IntervalList raw, Interval window) {
    if (!std::is_sorted(raw.begin(), raw.end(), by_start)) std::sort(raw.begin(), raw.end(), by_start);
    // Merge in place: `kept` never overtakes the read position.
    size_t kept = 0;
    for (const Interval& in : raw) {
        const Interval clipped{std::max(in.start, window.start), std::min(in.end, window.end)};
        if (clipped.end <= clipped.start) continue;
        if (kept > 0 && clipped.start <= raw[kept - 1].end) {
            raw[kept - 1].end = std::max(raw[kept - 1].end, clipped.end);
        } else {
            raw[kept++] = clipped;
        }
    }
    raw.resize(kept);
    return raw;
}

IntervalList union_of(const IntervalList& a, const IntervalList& b) {
    IntervalList out;
    out.reserve(a.size() + b.size());
    size_t i = 0, j = 0;
    while (i < a.size() || j < b.size()) {
        const bool take_a = j == b.size() || (i < a.size() && a[i].start <= b[j].start);
        append_merged(out, take_a ? a[i++] : b[j++]);
    }
    return out;
}

IntervalList intersection(const IntervalList& a, const IntervalList& b) {
    IntervalList out;
    size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        const TimeNs start = std::max(a[i].start, b[j].start);
        const TimeNs end = std::min(a[i].end, b[j].end);
        if (start < end) out.push_back({start, end});
        // The interval that ends first cannot meet anything further in the other list.
        if (a[i].end < b[j].end) {
            ++i;
        } else {
            ++j;
        }
    }
    return out;
}

IntervalList complement(const IntervalList& a, Interval window) {
    IntervalList out;
    TimeNs cursor = window.start;
    for (const Interval& in : a) {
        if (in.start >= window.end) break;
        if (in.start > cursor) out.push_back({cursor, in.start});
        cursor = std::max(cursor, in.end);
    }
    if (cursor < window.end) out.push_back({cursor, window.end});
    return out;
}

IntervalList difference(const IntervalList& a, const IntervalList& b) {
    if (a.empty()) return {};
    return intersection(a, complement(b, {a.front().start, a.back().end}));
}

TimeNs total_length(const IntervalList& list) {
    TimeNs total = 0;
    for (const Interval& in : list) total += in.length();
    return total;
}

}  // namespace pinscope
