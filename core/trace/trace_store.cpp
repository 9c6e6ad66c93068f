#include "core/trace/trace_store.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace pinscope {
namespace {

// A batch id with no span yet.
constexpr BatchExtent kNoExtent{std::numeric_limits<TimeNs>::max(), std::numeric_limits<TimeNs>::min(),
                                std::numeric_limits<TimeNs>::min()};

bool empty(const BatchExtent& extent) {
    return extent.first_start > extent.last_end;
}

}  // namespace

void TraceStore::set_lanes(std::vector<LaneInfo> lanes) {
    lanes_ = std::move(lanes);
    if (spans_.size() < lanes_.size()) spans_.resize(lanes_.size());
}

const LaneInfo* TraceStore::lane_info(LaneId id) const {
    return id < lanes_.size() ? &lanes_[id] : nullptr;
}

void TraceStore::add(const Span& span) {
    if (span.lane >= spans_.size()) spans_.resize(span.lane + 1);
    spans_[span.lane].add(span);
    note_batch(span);
    ++span_count_;
    latest_ = std::max(latest_, span.end);
    latest_span_end_ = std::max(latest_span_end_, span.end);
    if (span_count_ > limits_.max_spans) enforce_limits();
}

void TraceStore::adopt_lane(LaneId lane, std::vector<Span> spans) {
    if (lane >= spans_.size()) spans_.resize(lane + 1);
    const size_t replaced = spans_[lane].size();
    for (const Span& span : spans) {
        note_batch(span);
        latest_ = std::max(latest_, span.end);
        latest_span_end_ = std::max(latest_span_end_, span.end);
    }
    span_count_ = span_count_ - replaced + spans.size();
    spans_[lane].assign(std::move(spans));
    if (replaced) {
        rebuild_batches();
        recompute_latest();
    }
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

void TraceStore::note_batch(const Span& span) {
    if (span.batch == kNoBatch) return;
    if (batches_.empty()) batch_base_ = span.batch;
    if (span.batch < batch_base_) {  // an id below every one seen: rare, so the shift is affordable
        batches_.insert(batches_.begin(), static_cast<size_t>(batch_base_ - span.batch), kNoExtent);
        batch_base_ = span.batch;
    }
    const size_t index = static_cast<size_t>(span.batch - batch_base_);
    if (index >= batches_.size()) batches_.resize(index + 1, kNoExtent);
    BatchExtent& extent = batches_[index];
    extent.first_start = std::min(extent.first_start, span.start);
    extent.last_end = std::max(extent.last_end, span.end);
    if (span.kind == SpanKind::kernel) extent.last_kernel_end = std::max(extent.last_kernel_end, span.end);
}

std::optional<BatchExtent> TraceStore::batch_extent(int64_t batch) const {
    if (batch < batch_base_ || batch - batch_base_ >= static_cast<int64_t>(batches_.size()))
        return std::nullopt;
    const BatchExtent& extent = batches_[static_cast<size_t>(batch - batch_base_)];
    if (empty(extent)) return std::nullopt;
    return extent;
}

std::span<const Span> TraceStore::spans(LaneId lane) const {
    if (lane >= spans_.size()) return {};
    return spans_[lane].all();
}

std::span<const Span> TraceStore::spans_touching(LaneId lane, Interval window) const {
    if (lane >= spans_.size()) return {};
    return spans_[lane].touching(window);
}

std::span<const CounterSample> TraceStore::samples_in(CounterKind kind, Interval window) const {
    const std::vector<CounterSample>& series = counters(kind);
    const auto after = [](TimeNs t, const CounterSample& s) { return t < s.time; };
    auto first = std::upper_bound(series.begin(), series.end(), window.start, after);
    if (first != series.begin()) --first;
    auto stop = std::upper_bound(series.begin(), series.end(), window.end, after);
    if (first >= stop) return {};
    return {first, stop};
}

double TraceStore::level_at(CounterKind kind, TimeNs time) const {
    const std::span<const CounterSample> in_force = samples_in(kind, {time, time});
    return in_force.empty() ? 0.0 : in_force.back().value;
}

TimeNs TraceStore::first_time() const {
    TimeNs first = std::numeric_limits<TimeNs>::max();
    for (const LaneSpans& lane : spans_)
        if (!lane.empty()) first = std::min(first, lane.all().front().start);
    for (const auto& series : counters_)
        if (!series.empty()) first = std::min(first, series.front().time);
    return first == std::numeric_limits<TimeNs>::max() ? 0 : first;
}

TimeNs TraceStore::last_time() const {
    return span_count_ + counter_count_ == 0 ? 0 : latest_;
}

TimeNs TraceStore::latest_span_end() const {
    return span_count_ == 0 ? 0 : latest_span_end_;
}

TraceStore TraceStore::extract(Interval window) const {
    TraceStore copy(TraceLimits{std::numeric_limits<size_t>::max(), std::numeric_limits<size_t>::max()});
    copy.set_lanes(lanes_);
    copy.names_ = names_;
    copy.categories_ = categories_;
    for (const Flow& flow : flows_)
        if (flow.to_start >= window.start && flow.from_start <= window.end) copy.add(flow);
    for (const LaneSpans& lane : spans_)
        for (const Span& span : lane.touching(window))
            if (span.end >= window.start) copy.add(span);
    for (int kind = 0; kind < kCounterKindCount; ++kind)
        for (const CounterSample& sample : samples_in(static_cast<CounterKind>(kind), window))
            copy.add(sample);
    copy.limits_ = limits_;
    return copy;
}

TraceStore TraceStore::tables() const {
    TraceStore copy(limits_);
    copy.set_lanes(lanes_);
    copy.names_ = names_;
    copy.categories_ = categories_;
    copy.flows_ = flows_;
    return copy;
}

void TraceStore::evict_before(TimeNs time) {
    size_t dropped = 0;
    for (LaneSpans& lane : spans_) dropped += lane.erase_ended_before(time);
    span_count_ -= dropped;
    evicted_spans_ += dropped;
    std::erase_if(flows_, [&](const Flow& f) { return std::max(f.from_start, f.to_start) < time; });
    for (auto& series : counters_) {
        auto first_kept = std::lower_bound(series.begin(), series.end(), time,
                                           [](const CounterSample& s, TimeNs t) { return s.time < t; });
        if (first_kept != series.begin()) --first_kept;  // the level in force at `time`
        counter_count_ -= static_cast<size_t>(first_kept - series.begin());
        series.erase(series.begin(), first_kept);
    }
    if (dropped) {
        rebuild_batches();
        recompute_latest();
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

void TraceStore::rebuild_batches() {
    batches_.clear();
    for (const LaneSpans& lane : spans_)
        for (const Span& span : lane.all()) note_batch(span);
}

void TraceStore::recompute_latest() {
    latest_span_end_ = 0;
    for (const LaneSpans& lane : spans_)
        if (!lane.empty()) latest_span_end_ = std::max(latest_span_end_, lane.latest_end());
}

void TraceStore::clear() {
    for (LaneSpans& lane : spans_) {
        evicted_spans_ += lane.size();
        lane.clear();
    }
    for (auto& series : counters_) series.clear();
    flows_.clear();
    batches_.clear();
    span_count_ = 0;
    counter_count_ = 0;
    latest_ = 0;
    latest_span_end_ = 0;
}

}  // namespace pinscope
