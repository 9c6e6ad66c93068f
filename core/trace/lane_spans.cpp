#include "core/trace/lane_spans.h"

#include <algorithm>
#include <limits>

namespace pinscope {
namespace {

TimeNs duration_of(const Span& s) {
    return std::max<TimeNs>(0, s.end - s.start);
}

}  // namespace

void LaneSpans::add(const Span& span) {
    max_depth_ = std::max<uint32_t>(max_depth_, span.depth);
    if (spans_.empty() || spans_.back().start <= span.start) {
        const size_t block = spans_.size() / kBlock;
        if (block == reach_.size()) {
            reach_.push_back(block ? reach_[block - 1] : std::numeric_limits<TimeNs>::min());
            summed_.push_back(total_);
        }
        spans_.push_back(span);
        reach_[block] = std::max(reach_[block], span.end);
        total_ += duration_of(span);
        return;
    }
    // Late (CUPTI hands over GPU records in batches): keep the lane sorted. Late spans land near the end,
    // so the move and the blocks rebuilt after it cover a few blocks.
    auto at = std::upper_bound(spans_.begin(), spans_.end(), span.start,
                               [](TimeNs t, const Span& s) { return t < s.start; });
    const size_t index = static_cast<size_t>(at - spans_.begin());
    spans_.insert(at, span);
    total_ += duration_of(span);
    rebuild_blocks(index / kBlock);
}

void LaneSpans::assign(std::vector<Span> spans) {
    spans_ = std::move(spans);
    max_depth_ = 0;
    for (const Span& span : spans_) max_depth_ = std::max<uint32_t>(max_depth_, span.depth);
    rebuild_blocks(0);
}

size_t LaneSpans::erase_ended_before(TimeNs time) {
    // Not just a prefix: a long span near the front must not shield the short ones after it.
    const size_t erased = std::erase_if(spans_, [time](const Span& s) { return s.end < time; });
    if (erased) rebuild_blocks(0);
    return erased;
}

void LaneSpans::clear() {
    spans_.clear();
    reach_.clear();
    summed_.clear();
    total_ = 0;
    max_depth_ = 0;
}

void LaneSpans::rebuild_blocks(size_t from_block) {
    const size_t blocks = (spans_.size() + kBlock - 1) / kBlock;
    reach_.resize(blocks);
    summed_.resize(blocks);
    TimeNs latest = from_block ? reach_[from_block - 1] : std::numeric_limits<TimeNs>::min();
    TimeNs sum = from_block ? summed_[from_block - 1] : 0;
    if (from_block)  // the block before is unchanged: what it adds to the sum
        for (size_t i = (from_block - 1) * kBlock; i < from_block * kBlock; ++i)
            sum += duration_of(spans_[i]);
    for (size_t b = from_block; b < blocks; ++b) {
        summed_[b] = sum;
        const size_t stop = std::min(spans_.size(), (b + 1) * kBlock);
        for (size_t i = b * kBlock; i < stop; ++i) {
            latest = std::max(latest, spans_[i].end);
            sum += duration_of(spans_[i]);
        }
        reach_[b] = latest;
    }
    total_ = sum;
}

size_t LaneSpans::first_touching(Interval window) const {
    // The first block that reaches the window; before it, every span ended earlier.
    const auto block = std::lower_bound(reach_.begin(), reach_.end(), window.start);
    size_t first = static_cast<size_t>(block - reach_.begin()) * kBlock;
    while (first < spans_.size() && spans_[first].end < window.start) ++first;
    return first;
}

std::span<const Span> LaneSpans::touching(Interval window) const {
    const size_t first = std::min(first_touching(window), spans_.size());
    const auto stop = std::upper_bound(spans_.begin() + static_cast<std::ptrdiff_t>(first), spans_.end(),
                                       window.end, [](TimeNs t, const Span& s) { return t < s.start; });
    const size_t last = static_cast<size_t>(stop - spans_.begin());
    if (first >= last) return {};
    return std::span<const Span>(spans_).subspan(first, last - first);
}

// From whichever block boundary is nearer: forward from the block's start, or back from the next one's
// (the total at the lane's end). The timeline asks this twice for every fold it draws.
TimeNs LaneSpans::duration_before(size_t index) const {
    if (index >= spans_.size()) return total_;
    const size_t block = index / kBlock;
    if (index % kBlock <= kBlock / 2) {
        TimeNs sum = summed_[block];
        for (size_t i = block * kBlock; i < index; ++i) sum += duration_of(spans_[i]);
        return sum;
    }
    const size_t next_block_start = std::min(spans_.size(), (block + 1) * kBlock);
    TimeNs sum = next_block_start < spans_.size() ? summed_[block + 1] : total_;
    for (size_t i = index; i < next_block_start; ++i) sum -= duration_of(spans_[i]);
    return sum;
}

}  // namespace pinscope
