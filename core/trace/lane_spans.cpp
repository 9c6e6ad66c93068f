#include "core/trace/lane_spans.h"

#include <algorithm>
#include <limits>

namespace pinscope {

void LaneSpans::add(const Span& span) {
    if (spans_.empty() || spans_.back().start <= span.start) {
        const size_t block = spans_.size() / kBlock;
        spans_.push_back(span);
        if (block == reach_.size())
            reach_.push_back(
                std::max(span.end, block ? reach_[block - 1] : std::numeric_limits<TimeNs>::min()));
        else
            reach_[block] = std::max(reach_[block], span.end);
        return;
    }
    // Late (CUPTI hands over GPU records in batches): keep the lane sorted. Late spans land near the end,
    // so the move and the reach update touch a few blocks.
    auto at = std::upper_bound(spans_.begin(), spans_.end(), span.start,
                               [](TimeNs t, const Span& s) { return t < s.start; });
    const size_t index = static_cast<size_t>(at - spans_.begin());
    spans_.insert(at, span);
    // Every block from the insertion on now covers one span more: the new one, and the one pushed in
    // from the block before, whose end the previous block's reach already counts.
    if (spans_.size() > reach_.size() * kBlock) reach_.push_back(reach_.back());
    for (size_t b = index / kBlock; b < reach_.size(); ++b) reach_[b] = std::max(reach_[b], span.end);
}

size_t LaneSpans::erase_ended_before(TimeNs time) {
    // Not just a prefix: a long span near the front must not shield the short ones after it.
    const size_t erased = std::erase_if(spans_, [time](const Span& s) { return s.end < time; });
    if (erased) rebuild_reach(0);
    return erased;
}

void LaneSpans::clear() {
    spans_.clear();
    reach_.clear();
}

void LaneSpans::rebuild_reach(size_t from_block) {
    reach_.resize((spans_.size() + kBlock - 1) / kBlock);
    TimeNs latest = from_block ? reach_[from_block - 1] : std::numeric_limits<TimeNs>::min();
    for (size_t b = from_block; b < reach_.size(); ++b) {
        const size_t stop = std::min(spans_.size(), (b + 1) * kBlock);
        for (size_t i = b * kBlock; i < stop; ++i) latest = std::max(latest, spans_[i].end);
        reach_[b] = latest;
    }
}

std::span<const Span> LaneSpans::touching(Interval window) const {
    // The first block that reaches the window; before it, every span ended earlier.
    const auto block = std::lower_bound(reach_.begin(), reach_.end(), window.start);
    size_t first = static_cast<size_t>(block - reach_.begin()) * kBlock;
    while (first < spans_.size() && spans_[first].end < window.start) ++first;
    const auto stop =
        std::upper_bound(spans_.begin() + static_cast<std::ptrdiff_t>(std::min(first, spans_.size())),
                         spans_.end(), window.end, [](TimeNs t, const Span& s) { return t < s.start; });
    const size_t last = static_cast<size_t>(stop - spans_.begin());
    if (first >= last) return {};
    return std::span<const Span>(spans_).subspan(first, last - first);
}

}  // namespace pinscope
