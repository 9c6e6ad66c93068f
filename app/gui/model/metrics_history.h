#pragma once
// The live metrics: every `every` of trace time, the metrics of the last `window` are computed (reading
// only that window of the store) and appended to a bounded history, which the metrics panel plots.
#include <deque>

#include "core/analysis/metrics.h"

namespace pinscope::gui {

struct MetricsSample {
    TimeNs time = 0;  // end of the window, on the trace clock
    double samples_per_s = 0;
    double h2d_gbps = 0;            // while copies run (what pinning changes)
    double h2d_sustained_gbps = 0;  // bytes over the window (what the pipeline moves)
    double gpu_busy = 0, copy_busy = 0, overlap = 0, stall = 0;
    double gpu_idle = 0;
    Metrics::IdleCauses idle;
    double outstanding = 0, reorder_depth = 0, pinned_bytes = 0;  // levels in force at `time`
};

// A sample from metrics over a window that ends at `time`, with the counter levels in force then.
MetricsSample sample_of(const Metrics& metrics, const TraceStore& store, TimeNs time);

struct MetricsHistoryOptions {
    TimeNs every = 250 * kNsPerMs;
    TimeNs window = kNsPerS;
    // Spans are recorded when they end, so the newest few milliseconds are still incomplete: the
    // window ends this far before the newest data.
    TimeNs settle = 30 * kNsPerMs;
    size_t capacity = 240;  // one minute at the default rate
};

class MetricsHistory {
  public:
    explicit MetricsHistory(MetricsHistoryOptions options = {}) : options_(options) {}

    // Appends a sample when `every` has passed since the last one (by the store's clock). True if it did.
    // `lag`: how far behind its newest data the store is complete (late GPU records): the window ends
    // that far back, or `settle` back, whichever is more.
    // `slow_motion`: the trace runs that many times slower than real time; metrics come in real units.
    bool update(const TraceStore& store, int batch_size, TimeNs lag = 0, double slow_motion = 1);
    // The history of a finished trace over `span`: `capacity` samples from its start to its end, so the
    // plots show the whole run.
    void replay(const TraceStore& store, int batch_size, Interval span, double slow_motion = 1);
    void clear();

    const std::deque<MetricsSample>& samples() const { return samples_; }
    const Metrics& latest() const { return latest_; }  // full metrics of the newest window
    const MetricsHistoryOptions& options() const { return options_; }

  private:
    MetricsHistoryOptions options_;
    std::deque<MetricsSample> samples_;
    Metrics latest_;
    TimeNs last_end_ = 0;
};

}  // namespace pinscope::gui
