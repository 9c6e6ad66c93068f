#pragma once
// The collected trace: spans kept per lane and sorted by start, counter samples per kind sorted by time,
// and each batch's extent. One thread writes a store (a TraceCollector's, or a test's); readers of a
// store that another thread writes take a TraceCollector::Snapshot first. Windowed reads find their
// spans by binary search, so a question about one second of a long trace costs that second.
// Memory is bounded: past max_spans the oldest spans of every lane are evicted.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/trace/category_table.h"
#include "core/trace/interval.h"
#include "core/trace/lane_spans.h"
#include "core/trace/lanes.h"
#include "core/trace/name_table.h"
#include "core/trace/span.h"

namespace pinscope {

struct TraceLimits {
    size_t max_spans = 8'000'000;  // about 330 MB of spans
    size_t max_counter_samples = 2'000'000;
};

// An arrow from one span to another: a launch to its kernel, a batch's fetch to its copy. Spans are
// named by lane and start (the first span of that lane to start then, the outermost where spans nest).
// pinscope's own batches need none: their spans carry the batch id, and a batch's flow links its spans
// in time order. 24 bytes.
struct Flow {
    TimeNs from_start = 0, to_start = 0;
    LaneId from_lane = kNoLane, to_lane = kNoLane;
    bool operator==(const Flow&) const = default;
};

// Where one batch is in the trace: from its first span's start to its last span's end, and when its
// last kernel span (a batch in chunks has several) ended.
struct BatchExtent {
    TimeNs first_start = 0, last_end = 0;
    TimeNs last_kernel_end = 0;  // std::numeric_limits<TimeNs>::min() while it has no kernel span
};

class TraceStore {
  public:
    explicit TraceStore(TraceLimits limits = {}) : limits_(limits) {}

    void set_lanes(std::vector<LaneInfo> lanes);
    const std::vector<LaneInfo>& lanes() const { return lanes_; }
    const LaneInfo* lane_info(LaneId id) const;

    void add(const Span& span);
    void add(const CounterSample& sample);
    // Takes a whole lane at once (a capture being loaded): `spans` sorted by start, each on `lane`. Faster
    // than add() span by span, and the lane's earlier spans, if any, are replaced.
    void adopt_lane(LaneId lane, std::vector<Span> spans);

    // The string table that Span::name indexes; entry kNoName is "".
    uint32_t intern(std::string_view name) { return names_.intern(name); }
    std::string_view name(uint32_t id) const { return names_.name(id); }
    const std::vector<std::string>& names() const { return names_.names(); }

    // The categories Span::kind names: pinscope's kinds, then an imported trace's own.
    SpanKind intern_category(std::string_view name) { return categories_.intern(name); }
    const CategoryTable& categories() const { return categories_; }
    std::string_view category_name(SpanKind kind) const { return categories_.name(kind); }

    // Flows, kept in the order added; evicted with the spans they start from.
    void add(const Flow& flow) { flows_.push_back(flow); }
    const std::vector<Flow>& flows() const { return flows_; }

    // Every span of a lane, sorted by start. Empty for a lane that recorded nothing.
    std::span<const Span> spans(LaneId lane) const;
    // The lane itself, for its windowed sums; nullptr for a lane that never recorded.
    const LaneSpans* lane(LaneId lane) const { return lane < spans_.size() ? &spans_[lane] : nullptr; }
    // The spans of a lane that can touch [window.start, window.end] (LaneSpans::touching): skip those
    // whose end is before window.start.
    std::span<const Span> spans_touching(LaneId lane, Interval window) const;
    // Sorted by time.
    const std::vector<CounterSample>& counters(CounterKind kind) const {
        return counters_[static_cast<int>(kind)];
    }
    // The samples of a series from the one in force at window.start (the last at or before it) to the
    // last at or before window.end.
    std::span<const CounterSample> samples_in(CounterKind kind, Interval window) const;
    // The level in force at `time` (0 before the first sample).
    double level_at(CounterKind kind, TimeNs time) const;

    // Over the spans the store holds; nullopt for a batch it has no span of.
    std::optional<BatchExtent> batch_extent(int64_t batch) const;
    // Every batch id with a span lies in [first, end); an empty range when there is none.
    std::pair<int64_t, int64_t> batch_ids() const {
        return {batch_base_, batch_base_ + static_cast<int64_t>(batches_.size())};
    }

    size_t span_count() const { return span_count_; }
    uint64_t evicted_spans() const { return evicted_spans_; }
    TimeNs first_time() const;       // earliest span start or counter sample; 0 when empty
    TimeNs last_time() const;        // latest span end or counter sample; 0 when empty
    TimeNs latest_span_end() const;  // latest span end on any lane (counters can run ahead); 0 when empty

    // A store of the same lanes holding the spans that touch `window` and the samples of samples_in():
    // what an export takes along to write on another thread.
    TraceStore extract(Interval window) const;
    // A store of the same lanes, names, categories and flows, and no spans or samples: what a capture
    // streamed as the run went needs at its end (its spans are on disk already).
    TraceStore tables() const;

    // Drops every span that ended before `time` and every counter sample before it (keeping the last
    // one, which still holds the level at `time`).
    void evict_before(TimeNs time);
    void clear();

  private:
    void enforce_limits();
    void note_batch(const Span& span);
    void rebuild_batches();
    void recompute_latest();

    TraceLimits limits_;
    std::vector<LaneInfo> lanes_;
    std::vector<LaneSpans> spans_;  // by lane id
    std::vector<CounterSample> counters_[kCounterKindCount];
    std::vector<BatchExtent> batches_;  // by batch id, from batch_base_
    int64_t batch_base_ = 0;
    size_t span_count_ = 0;
    size_t counter_count_ = 0;
    TimeNs latest_ = 0;
    TimeNs latest_span_end_ = 0;
    uint64_t evicted_spans_ = 0;
    NameTable names_;
    CategoryTable categories_;
    std::vector<Flow> flows_;
};

}  // namespace pinscope
