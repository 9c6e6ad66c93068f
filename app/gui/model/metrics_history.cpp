#include "app/gui/model/metrics_history.h"

#include <algorithm>

namespace pinscope::gui {

bool MetricsHistory::update(const TraceStore& store, int batch_size, TimeNs lag, double slow_motion) {
    const TimeNs end = store.latest_span_end() - std::max(options_.settle, lag);
    const TimeNs first = store.first_time();
    if (end <= first || end - last_end_ < options_.every) return false;
    const Interval window{std::max(first, end - options_.window), end};
    latest_ = compute_metrics(store, batch_size, MetricsWindow{window.start, window.end}, slow_motion);
    last_end_ = end;
    samples_.push_back(sample_of(latest_, store, end));
    while (samples_.size() > options_.capacity) samples_.pop_front();
    return true;
}

void MetricsHistory::replay(const TraceStore& store, int batch_size, Interval span, double slow_motion) {
    clear();
    if (span.length() <= 0) return;
    const TimeNs step = std::max<TimeNs>(1, span.length() / static_cast<TimeNs>(options_.capacity));
    // Windows a little wider than the steps: smooth plots, and each span is read about twice, not
    // `window / step` times, so a long capture's history costs a pass or two over it.
    const TimeNs length = std::max(2 * step, std::min(options_.window / 4, span.length()));
    for (TimeNs end = span.start + step; end <= span.end; end += step) {
        const TimeNs start = std::max(span.start, end - length);
        latest_ = compute_metrics(store, batch_size, MetricsWindow{start, end}, slow_motion);
        samples_.push_back(sample_of(latest_, store, end));
        last_end_ = end;
    }
    while (samples_.size() > options_.capacity) samples_.pop_front();
}

MetricsSample sample_of(const Metrics& metrics, const TraceStore& store, TimeNs time) {
    MetricsSample sample;
    sample.time = time;
    sample.samples_per_s = metrics.samples_per_s;
    sample.h2d_gbps = metrics.h2d_gbps;
    sample.h2d_sustained_gbps = metrics.h2d_sustained_gbps;
    sample.gpu_busy = metrics.gpu_busy;
    sample.copy_busy = metrics.copy_busy;
    sample.gpu_idle = metrics.gpu_idle;
    sample.idle = metrics.idle;
    sample.overlap = metrics.overlap;
    sample.stall = metrics.stall;
    sample.outstanding = store.level_at(CounterKind::outstanding_batches, time);
    sample.reorder_depth = store.level_at(CounterKind::reorder_depth, time);
    sample.pinned_bytes = store.level_at(CounterKind::pinned_bytes, time);
    return sample;
}

void MetricsHistory::clear() {
    samples_.clear();
    latest_ = Metrics{};
    last_end_ = 0;
}

}  // namespace pinscope::gui
