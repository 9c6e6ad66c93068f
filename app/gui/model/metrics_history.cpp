#include "app/gui/model/metrics_history.h"

#include "app/gui/model/trace_window.h"
#include "core/analysis/time_window.h"

namespace pinscope::gui {
namespace {

double level_at(const TraceStore& store, CounterKind kind, TimeNs time) {
    std::span<const CounterSample> in_force = samples_in_window(store.counters(kind), time, time);
    return in_force.empty() ? 0.0 : in_force.back().value;
}

}  // namespace

bool MetricsHistory::update(const TraceStore& store, int batch_size) {
    const TimeNs end = latest_span_end(store) - options_.settle;
    const TimeNs first = store.first_time();
    if (end <= first || end - last_end_ < options_.every) return false;
    const Interval window{std::max(first, end - options_.window), end};
    const TraceStore copy = copy_window(store, window);
    latest_ = compute_metrics(copy, batch_size, MetricsWindow{window.start, window.end});
    last_end_ = end;

    MetricsSample sample;
    sample.time = end;
    sample.samples_per_s = latest_.samples_per_s;
    sample.h2d_gbps = latest_.h2d_gbps;
    sample.h2d_sustained_gbps = latest_.h2d_sustained_gbps;
    sample.gpu_busy = latest_.gpu_busy;
    sample.overlap = latest_.overlap;
    sample.stall = latest_.stall;
    sample.outstanding = level_at(store, CounterKind::outstanding_batches, end);
    sample.reorder_depth = level_at(store, CounterKind::reorder_depth, end);
    sample.pinned_bytes = level_at(store, CounterKind::pinned_bytes, end);
    samples_.push_back(sample);
    while (samples_.size() > options_.capacity) samples_.pop_front();
    return true;
}

void MetricsHistory::clear() {
    samples_.clear();
    latest_ = Metrics{};
    last_end_ = 0;
}

}  // namespace pinscope::gui
