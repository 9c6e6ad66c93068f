#include "app/gui/model/metrics_history.h"

#include <algorithm>

namespace pinscope::gui {

bool MetricsHistory::update(const TraceStore& store, int batch_size, TimeNs lag) {
    const TimeNs end = store.latest_span_end() - std::max(options_.settle, lag);
    const TimeNs first = store.first_time();
    if (end <= first || end - last_end_ < options_.every) return false;
    const Interval window{std::max(first, end - options_.window), end};
    latest_ = compute_metrics(store, batch_size, MetricsWindow{window.start, window.end});
    last_end_ = end;

    MetricsSample sample;
    sample.time = end;
    sample.samples_per_s = latest_.samples_per_s;
    sample.h2d_gbps = latest_.h2d_gbps;
    sample.h2d_sustained_gbps = latest_.h2d_sustained_gbps;
    sample.gpu_busy = latest_.gpu_busy;
    sample.copy_busy = latest_.copy_busy;
    sample.gpu_idle = latest_.gpu_idle;
    sample.idle = latest_.idle;
    sample.overlap = latest_.overlap;
    sample.stall = latest_.stall;
    sample.outstanding = store.level_at(CounterKind::outstanding_batches, end);
    sample.reorder_depth = store.level_at(CounterKind::reorder_depth, end);
    sample.pinned_bytes = store.level_at(CounterKind::pinned_bytes, end);
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
