#include "core/trace/trace_store.h"

#include <algorithm>
#include <limits>

namespace pinscope {

void TraceStore::set_lanes(std::vector<LaneInfo> lanes) {
    lanes_ = std::move(lanes);
    if (spans_.size() < lanes_.size()) spans_.resize(lanes_.size());
}

const LaneInfo* TraceStore::lane_info(LaneId id) const {
    return id < lanes_.size() ? &lanes_[id] : nullptr;
}

void TraceStore::add(const Span& span) {
    if (span.lane >= spans_.size()) spans_.resize(span.lane + 1);
    std::vector<Span>& lane = spans_[span.lane];
    if (lane.empty() || lane.back().start <= span.start) {
        lane.push_back(span);
    } else {  // late arrival (e.g. CUPTI buffers complete out of order): keep the lane sorted
        auto at = std::upper_bound(lane.begin(), lane.end(), span.start,
                                   [](TimeNs t, const Span& s) { return t < s.start; });
        lane.insert(at, span);
    }
    ++span_count_;
    latest_ = std::max(latest_, span.end);
    if (span_count_ > limits_.max_spans) enforce_limits();
}

void TraceStore::add(const CounterSample& sample) {
    std::vector<CounterSample>& series = counters_[static_cast<int>(sample.kind)];
    if (series.empty() || series.back().time <= sample.time) {
        series.push_back(sample);
    } else {
        auto at = std::upper_bound(series.begin(), series.end(), sample.time,
                                   [](TimeNs t, const CounterSample& s) { return t < s.time; });
        series.insert(at, sample);
    }
    ++counter_count_;
    latest_ = std::max(latest_, sample.time);
    if (counter_count_ > limits_.max_counter_samples) enforce_limits();
}

std::span<const Span> TraceStore::spans(LaneId lane) const {
    if (lane >= spans_.size()) return {};
    return spans_[lane];
}

TimeNs TraceStore::first_time() const {
    TimeNs first = std::numeric_limits<TimeNs>::max();
    for (const auto& lane : spans_)
        if (!lane.empty()) first = std::min(first, lane.front().start);
    for (const auto& series : counters_)
        if (!series.empty()) first = std::min(first, series.front().time);
    return first == std::numeric_limits<TimeNs>::max() ? 0 : first;
}

TimeNs TraceStore::last_time() const {
    return span_count_ + counter_count_ == 0 ? 0 : latest_;
}

void TraceStore::evict_before(TimeNs time) {
    for (auto& lane : spans_) {
        // Not just a prefix: a long span near the front must not shield the short ones after it.
        const size_t dropped = std::erase_if(lane, [time](const Span& s) { return s.end < time; });
        span_count_ -= dropped;
        evicted_spans_ += dropped;
    }
    for (auto& series : counters_) {
        auto first_kept = std::lower_bound(series.begin(), series.end(), time,
                                           [](const CounterSample& s, TimeNs t) { return s.time < t; });
        if (first_kept != series.begin()) --first_kept;  // the level in force at `time`
        counter_count_ -= static_cast<size_t>(first_kept - series.begin());
        series.erase(series.begin(), first_kept);
    }
}

// Evicts the oldest quarter of the covered time, then a quarter of what is left, until the store is back
// under its limits. The cut only moves forward: a long span at the front of a lane, or the counter level
// kept at the cut, can make a pass remove nothing, and the next pass must not retry the same cut.
void TraceStore::enforce_limits() {
    const TimeNs last = last_time();
    TimeNs cut = first_time();
    while (span_count_ > limits_.max_spans || counter_count_ > limits_.max_counter_samples) {
        if (cut > last) {  // everything ends before the cut, and still too much: only the levels were left
            clear();
            return;
        }
        cut += std::max<TimeNs>(1, (last - cut) / 4);
        evict_before(cut);
    }
}

void TraceStore::clear() {
    for (auto& lane : spans_) {
        evicted_spans_ += lane.size();
        lane.clear();
    }
    for (auto& series : counters_) series.clear();
    span_count_ = 0;
    counter_count_ = 0;
    latest_ = 0;
}

}  // namespace pinscope
