#pragma once
// The collected trace, owned by one consumer thread (the GUI thread, or a headless run's collector).
// Spans are kept per lane and sorted by start, so a view can binary-search the visible range.
// Memory is bounded: past max_spans the oldest spans of every lane are evicted.
#include <cstdint>
#include <span>
#include <vector>

#include "core/trace/lanes.h"
#include "core/trace/span.h"

namespace pinscope {

struct TraceLimits {
    size_t max_spans = 8'000'000;  // about 320 MB of spans
    size_t max_counter_samples = 2'000'000;
};

class TraceStore {
  public:
    explicit TraceStore(TraceLimits limits = {}) : limits_(limits) {}

    void set_lanes(std::vector<LaneInfo> lanes);
    const std::vector<LaneInfo>& lanes() const { return lanes_; }
    const LaneInfo* lane_info(LaneId id) const;

    void add(const Span& span);
    void add(const CounterSample& sample);

    // Sorted by start. Empty for a lane that recorded nothing.
    std::span<const Span> spans(LaneId lane) const;
    // Sorted by time.
    const std::vector<CounterSample>& counters(CounterKind kind) const {
        return counters_[static_cast<int>(kind)];
    }

    size_t span_count() const { return span_count_; }
    uint64_t evicted_spans() const { return evicted_spans_; }
    TimeNs first_time() const;  // earliest span start or counter sample; 0 when empty
    TimeNs last_time() const;   // latest span end or counter sample; 0 when empty

    // Drops every span that ended before `time` and every counter sample before it (keeping the last
    // one, which still holds the level at `time`).
    void evict_before(TimeNs time);
    void clear();

  private:
    void enforce_limits();

    TraceLimits limits_;
    std::vector<LaneInfo> lanes_;
    std::vector<std::vector<Span>> spans_;  // by lane id
    std::vector<CounterSample> counters_[kCounterKindCount];
    size_t span_count_ = 0;
    size_t counter_count_ = 0;
    TimeNs latest_ = 0;
    uint64_t evicted_spans_ = 0;
};

}  // namespace pinscope
