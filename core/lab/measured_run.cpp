#include "core/lab/measured_run.h"

namespace pinscope {
namespace {

// Set field by field: a designated initializer that leaves fields to their defaults warns under -Wextra.
CollectorOptions limited_to(TraceLimits limits, std::shared_ptr<TraceTap> tap) {
    CollectorOptions options;
    options.limits = limits;
    options.tap = std::move(tap);
    return options;
}

}  // namespace

MeasuredRun::MeasuredRun(const PipelineConfig& config, TraceLimits limits, std::shared_ptr<TraceTap> tap)
    : config_(config),
      session_(std::make_unique<Session>(config)),
      collector_(std::make_unique<TraceCollector>(session_->trace(), limited_to(limits, std::move(tap)))) {}

MeasuredRun::~MeasuredRun() {
    session_->stop();
    collector_.reset();
}

void MeasuredRun::run(const std::function<void()>& tick) {
    session_->start();
    while (!session_->wait(kTick))
        if (tick) tick();
    collector_->flush();
}

MetricsWindow MeasuredRun::window() const {
    return measured_window(collector_->read().store());
}

Metrics MeasuredRun::metrics() const {
    const TraceCollector::Snapshot snapshot = collector_->read();
    Metrics metrics = compute_metrics(snapshot.store(), config_.batch_size, measured_window(snapshot.store()),
                                      config_.slow_motion);
    add_startup_totals(snapshot.store(), metrics, config_.slow_motion);
    return metrics;
}

MetricsWindow measured_window(const TraceStore& store) {
    // No batch reached the GPU (a run cut short in its first batch): the run measured nothing, over all
    // of its time, not over the time since the clock's epoch.
    const TimeNs first = first_batch_time(store);
    return MetricsWindow{first ? first : store.first_time(), store.last_time()};
}

TimeNs first_batch_time(const TraceStore& store) {
    TimeNs first = 0;
    for (const LaneInfo& lane : store.lanes()) {
        if (lane.role != LaneRole::h2d) continue;
        std::span<const Span> spans = store.spans(lane.id);
        if (!spans.empty() && (first == 0 || spans.front().start < first)) first = spans.front().start;
    }
    return first;
}

Metrics measure(const PipelineConfig& config) {
    MeasuredRun run(config);
    run.run();
    return run.metrics();
}

}  // namespace pinscope
