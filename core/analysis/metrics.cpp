#include "core/analysis/metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <unordered_set>

#include "core/analysis/intervals.h"

namespace pinscope {

namespace {

// A capture whose config is damaged (it opens with a warning) must not turn every rate into NaN: a slow
// motion below 1 or not finite counts as real time.
double usable_slow_motion(double slow_motion) {
    return slow_motion >= 1 && std::isfinite(slow_motion) ? slow_motion : 1;
}

bool ends_in(Interval window, TimeNs time) {
    return time > window.start && time <= window.end;
}

Interval resolve_window(const TraceStore& store, MetricsWindow window) {
    if (window.start == 0 && window.end == 0) return {store.first_time(), store.last_time()};
    return {window.start, std::max(window.start, window.end)};
}

// The time inside `window` covered by spans that `selected(lane, span)` picks, over all lanes.
template <class Selector>
IntervalList covered_time(const TraceStore& store, Interval window, Selector&& selected) {
    IntervalList covered;
    for (const LaneInfo& lane : store.lanes()) {
        IntervalList lane_raw;
        for (const Span& span : store.spans_touching(lane.id, window))
            if (selected(lane, span)) lane_raw.push_back({span.start, span.end});
        if (lane_raw.empty()) continue;
        // One lane is sorted by start already, so normalizing it is a linear pass.
        covered = union_of(covered, normalized(std::move(lane_raw), window));
    }
    return covered;
}

// Integer times and byte counts convert to double on the way in.
double fraction(double part, double whole) {
    if (whole <= 0) return 0;
    return std::clamp(part / whole, 0.0, 1.0);
}

// Nearest rank: the value at 1-based rank ceil(percent/100 * n). Reorders `values`.
TimeNs percentile(std::vector<TimeNs>& values, int percent) {
    const size_t rank = (static_cast<size_t>(percent) * values.size() + 99) / 100;
    auto at = values.begin() + static_cast<std::ptrdiff_t>(std::max<size_t>(rank, 1) - 1);
    std::nth_element(values.begin(), at, values.end());
    return *at;
}

StageLatency summarize(SpanKind kind, std::vector<TimeNs>& durations) {
    StageLatency latency;
    latency.kind = kind;
    latency.count = durations.size();
    if (durations.empty()) return latency;
    // Summed in double: a hostile capture's spans may each last up to 2^62 ns, and their sum overflow.
    const double total = std::accumulate(durations.begin(), durations.end(), 0.0,
                                         [](double sum, TimeNs d) { return sum + static_cast<double>(d); });
    latency.mean_us = total / static_cast<double>(durations.size()) / kNsPerUs;
    latency.p50_us = static_cast<double>(percentile(durations, 50)) / kNsPerUs;
    latency.p99_us = static_cast<double>(percentile(durations, 99)) / kNsPerUs;
    return latency;
}

std::vector<StageLatency> stage_latencies(const TraceStore& store, Interval window) {
    std::vector<TimeNs> durations[kSpanKindCount];
    for (const LaneInfo& lane : store.lanes())
        for (const Span& span : store.spans_touching(lane.id, window))
            if (is_builtin(span.kind) && ends_in(window, span.end))
                durations[static_cast<int>(span.kind)].push_back(span.duration());
    std::vector<StageLatency> latencies;
    for (int kind = 0; kind < kSpanKindCount; ++kind)
        if (!durations[kind].empty())
            latencies.push_back(summarize(static_cast<SpanKind>(kind), durations[kind]));
    return latencies;
}

struct CopyVolume {
    uint64_t h2d = 0, d2h = 0, pageable_h2d = 0, pinned_h2d = 0;
    TimeNs h2d_busy = 0, d2h_busy = 0;  // union of the counted spans
    TimeNs pageable_h2d_busy = 0, pinned_h2d_busy = 0;
};

TimeNs busy_time(IntervalList spans) {
    if (spans.empty()) return 0;
    TimeNs from = spans.front().start, to = spans.front().end;
    for (const Interval& s : spans) from = std::min(from, s.start), to = std::max(to, s.end);
    return total_length(normalized(std::move(spans), {from, to}));
}

CopyVolume copy_volume(const TraceStore& store, Interval window) {
    CopyVolume volume;
    IntervalList h2d_spans, d2h_spans, pageable_spans, pinned_spans;
    for (const LaneInfo& lane : store.lanes()) {
        for (const Span& span : store.spans_touching(lane.id, window)) {
            if (!ends_in(window, span.end)) continue;
            if (span.kind == SpanKind::h2d) {
                volume.h2d += span.bytes;
                if (span.memory == HostMemory::pageable) {
                    volume.pageable_h2d += span.bytes;
                    pageable_spans.push_back({span.start, span.end});
                } else if (span.memory == HostMemory::pinned) {
                    volume.pinned_h2d += span.bytes;
                    pinned_spans.push_back({span.start, span.end});
                }
                h2d_spans.push_back({span.start, span.end});
            } else if (span.kind == SpanKind::d2h) {
                volume.d2h += span.bytes;
                d2h_spans.push_back({span.start, span.end});
            }
        }
    }
    volume.h2d_busy = busy_time(std::move(h2d_spans));
    volume.pageable_h2d_busy = busy_time(std::move(pageable_spans));
    volume.pinned_h2d_busy = busy_time(std::move(pinned_spans));
    volume.d2h_busy = busy_time(std::move(d2h_spans));
    return volume;
}

// A batch counts once, when its last kernel span (a batch in chunks has several) ends in the window.
// Its extent comes from the store's batch index, so a batch that straddles the window edge is whole;
// only the kernel spans that end in the window are read.
StageLatency batch_latency(const TraceStore& store, Interval window) {
    std::vector<TimeNs> latencies;
    std::unordered_set<int64_t> counted;
    for (const LaneInfo& lane : store.lanes()) {
        for (const Span& span : store.spans_touching(lane.id, window)) {
            if (span.kind != SpanKind::kernel || span.batch == kNoBatch || !ends_in(window, span.end))
                continue;
            const std::optional<BatchExtent> extent = store.batch_extent(span.batch);
            if (!extent || extent->last_kernel_end != span.end) continue;  // a later chunk ends it
            if (counted.insert(span.batch).second)
                latencies.push_back(extent->last_end - extent->first_start);
        }
    }
    return summarize(SpanKind::count, latencies);
}

// The highest level the window saw, counting the level in force when it opened.
double max_level(const TraceStore& store, CounterKind kind, Interval window) {
    double level = 0;
    for (const CounterSample& sample : store.samples_in(kind, window)) level = std::max(level, sample.value);
    return level;
}

template <class... Kinds>
auto of_kind(Kinds... kinds) {
    return [=](const LaneInfo&, const Span& s) { return ((s.kind == kinds) || ...); };
}

template <class... Kinds>
auto on_train_loop(Kinds... kinds) {
    return [=](const LaneInfo& lane, const Span& s) {
        return lane.role == LaneRole::main && ((s.kind == kinds) || ...);
    };
}

// The compute engine's idle time, split by the train loop's spans at the time. With num_workers=0 the
// train loop loads inline (fetch and pin on its own lane): that is waiting for data too, as PyTorch's
// profilers count time in next().
// Copies running with no kernel come next: the GPU waits for bytes still crossing the link (the train
// loop meanwhile blocks on a slot, or issues the next batch; either way the copy is what holds the GPU).
void set_idle_causes(const TraceStore& store, Interval window, const IntervalList& kernels,
                     const IntervalList& copies, Metrics& m) {
    const IntervalList idle = complement(kernels, window);
    const IntervalList loader = intersection(
        covered_time(store, window, on_train_loop(SpanKind::wait, SpanKind::fetch, SpanKind::pin)), idle);
    const IntervalList staging =
        difference(intersection(covered_time(store, window, on_train_loop(SpanKind::stage)), idle), loader);
    const IntervalList waiting_for_copies = difference(intersection(copies, idle), union_of(loader, staging));
    const IntervalList explained = union_of(union_of(loader, staging), waiting_for_copies);
    const IntervalList sync =
        difference(intersection(covered_time(store, window, on_train_loop(SpanKind::sync)), idle), explained);
    const auto share = [&](const IntervalList& time) {
        return fraction(total_length(time), window.length());
    };
    m.gpu_idle = share(idle);
    m.idle.loader = share(loader);
    m.idle.staging = share(staging);
    m.idle.copies = share(waiting_for_copies);
    m.idle.sync = share(sync);
    m.idle.other = share(difference(idle, union_of(explained, sync)));
    m.stall = m.idle.loader;
}

StageLatency in_real_units(StageLatency latency, double slow_motion) {
    latency.p50_us /= slow_motion;
    latency.p99_us /= slow_motion;
    latency.mean_us /= slow_motion;
    return latency;
}

}  // namespace

Metrics compute_metrics(const TraceStore& store, int batch_size, MetricsWindow requested,
                        double slow_motion) {
    slow_motion = usable_slow_motion(slow_motion);
    batch_size = std::max(batch_size, 0);
    const Interval window = resolve_window(store, requested);
    Metrics m;
    m.start = window.start;
    m.end = window.end;
    m.seconds = ns_to_s(window.length()) / slow_motion;  // real seconds: rates below are in real units
    const auto per_second = [&](double amount) { return m.seconds > 0 ? amount / m.seconds : 0.0; };

    m.batch_latency = batch_latency(store, window);
    m.batches = static_cast<int64_t>(m.batch_latency.count);
    m.samples = m.batches * batch_size;
    m.batches_per_s = per_second(static_cast<double>(m.batches));
    m.samples_per_s = per_second(static_cast<double>(m.samples));

    const CopyVolume volume = copy_volume(store, window);
    m.h2d_bytes = volume.h2d;
    m.d2h_bytes = volume.d2h;
    m.h2d_sustained_gbps = per_second(static_cast<double>(volume.h2d)) / 1e9;
    m.d2h_sustained_gbps = per_second(static_cast<double>(volume.d2h)) / 1e9;
    // bytes per nanosecond is GB/s
    m.h2d_gbps = volume.h2d_busy > 0
                     ? static_cast<double>(volume.h2d) / static_cast<double>(volume.h2d_busy) * slow_motion
                     : 0;
    m.d2h_gbps = volume.d2h_busy > 0
                     ? static_cast<double>(volume.d2h) / static_cast<double>(volume.d2h_busy) * slow_motion
                     : 0;
    m.pageable_h2d_fraction = fraction(volume.pageable_h2d, volume.h2d);
    m.h2d_pageable_bytes = volume.pageable_h2d;
    m.h2d_pinned_bytes = volume.pinned_h2d;
    const auto gbps = [&](uint64_t bytes, TimeNs busy) {
        return busy > 0 ? static_cast<double>(bytes) / static_cast<double>(busy) * slow_motion : 0.0;
    };
    m.h2d_pageable_gbps = gbps(volume.pageable_h2d, volume.pageable_h2d_busy);
    m.h2d_pinned_gbps = gbps(volume.pinned_h2d, volume.pinned_h2d_busy);

    const IntervalList kernels = covered_time(store, window, of_kind(SpanKind::kernel));
    const IntervalList h2d = covered_time(store, window, of_kind(SpanKind::h2d));
    const IntervalList d2h = covered_time(store, window, of_kind(SpanKind::d2h));
    const IntervalList copies = union_of(h2d, d2h);
    const TimeNs kernel_time = total_length(kernels);
    const auto share = [&](const IntervalList& time) {
        return fraction(total_length(time), window.length());
    };
    m.gpu_busy = fraction(kernel_time, window.length());
    m.h2d_busy = share(h2d);
    m.d2h_busy = share(d2h);
    m.copy_busy = share(copies);
    m.overlap = fraction(total_length(intersection(copies, kernels)), kernel_time);
    set_idle_causes(store, window, kernels, copies, m);
    m.data_wait =
        share(covered_time(store, window, on_train_loop(SpanKind::wait, SpanKind::fetch, SpanKind::pin)));

    m.outstanding_max = max_level(store, CounterKind::outstanding_batches, window);
    m.reorder_max = max_level(store, CounterKind::reorder_depth, window);
    m.pinned_bytes_max = max_level(store, CounterKind::pinned_bytes, window);

    m.latencies = stage_latencies(store, window);
    m.batch_latency = in_real_units(m.batch_latency, slow_motion);
    for (StageLatency& latency : m.latencies) latency = in_real_units(latency, slow_motion);
    return m;
}

void add_startup_totals(const TraceStore& store, Metrics& m, double slow_motion) {
    slow_motion = usable_slow_motion(slow_motion);
    m.startup_s = m.stopwatch_s = 0;
    for (const LaneInfo& lane : store.lanes()) {
        if (lane.group != LaneGroup::host) continue;  // start-up and stopwatches are host threads' work
        for (const Span& span : store.spans(lane.id)) {
            if (span.kind == SpanKind::startup) m.startup_s += ns_to_s(span.duration()) / slow_motion;
            if (span.kind == SpanKind::stopwatch) m.stopwatch_s += ns_to_s(span.duration()) / slow_motion;
        }
    }
}

}  // namespace pinscope
