#pragma once
// One bounded run, measured as `pinscope run` reports it: a Session with its TraceCollector, metrics from
// the first batch to the end (thread start-up and the first pinned allocations do not count against a
// config; PyTorch's steady rate is measured the same way). The command line, the tests of presets and
// lessons, and sweeps all measure through this.
#include <functional>
#include <memory>

#include "core/analysis/metrics.h"
#include "core/pipeline/session.h"
#include "core/trace/trace_collector.h"

namespace pinscope {

class MeasuredRun {
  public:
    // Makes the session; throws as Session does (std::invalid_argument, DeviceError, CalibrationError).
    // `limits` bound the trace it keeps (a run recorded to a capture keeps more than the app does).
    // `tap`, when given, sees every span collected (a capture streamed as the run goes).
    explicit MeasuredRun(const PipelineConfig& config, TraceLimits limits = {},
                         std::shared_ptr<TraceTap> tap = nullptr);
    ~MeasuredRun();

    // Starts the run and returns when it ends (its seconds or batches, a failure, or stop()). `tick` runs
    // on the calling thread every `kTick` meanwhile: progress, and a stop asked for by a signal, which
    // then takes effect within a tick.
    static constexpr TimeNs kTick = 50 * kNsPerMs;
    void run(const std::function<void()>& tick = {});
    Session& session() { return *session_; }
    const Session& session() const { return *session_; }

    // Once run() has returned: the trace, and its metrics from the first batch on.
    TraceCollector::Snapshot trace() const { return collector_->read(); }
    Metrics metrics() const;
    // Where metrics() measures: from the first batch's first copy to the end of the trace.
    MetricsWindow window() const;

  private:
    PipelineConfig config_;
    std::unique_ptr<Session> session_;
    std::unique_ptr<TraceCollector> collector_;  // after the session: gone before it
};

// When the first batch reached the GPU (its first H2D span), or 0.
TimeNs first_batch_time(const TraceStore& store);
// A run's measured window: from first_batch_time() (or the trace's start, without one) to its end.
MetricsWindow measured_window(const TraceStore& store);

// Runs `config` to its end and returns its metrics: the one-call form of MeasuredRun.
Metrics measure(const PipelineConfig& config);

}  // namespace pinscope
