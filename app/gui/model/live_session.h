#pragma once
// The app's running pipeline: a Session that runs unbounded, and the TraceCollector whose thread owns
// its trace (Tracy's split: the pipeline's threads record, the collector sorts and stores, the view
// only reads a snapshot). The live metrics are computed on the collector's thread too, after each
// collection, so a frame reads them instead of computing them. A config change goes to the running
// pipeline (Session::reconfigure); after a run has failed (a worker error), applying a config starts a
// fresh run instead.
#include <memory>
#include <mutex>
#include <string>

#include "app/gui/model/metrics_history.h"
#include "core/pipeline/session.h"
#include "core/trace/trace_collector.h"

namespace pinscope::gui {

// A few million spans are minutes of a busy pipeline: enough history for a classroom, and bounded.
constexpr TraceLimits kLiveTraceLimits{4'000'000, 1'000'000};

class LiveSession {
  public:
    // Starts the run. Throws as Session does: std::invalid_argument for a config that cannot run,
    // DeviceError or CalibrationError when the device cannot be made.
    explicit LiveSession(const PipelineConfig& config, TraceLimits limits = kLiveTraceLimits);
    ~LiveSession();
    LiveSession(const LiveSession&) = delete;
    LiveSession& operator=(const LiveSession&) = delete;

    // A consistent view of the trace; the collector waits while one is held, so hold it for a frame.
    TraceCollector::Snapshot read() const { return collector_->read(); }
    // Once per frame: the session's status as of now (one lock per frame, not one per widget).
    void refresh();
    const SessionStatus& status() const { return status_; }
    // The live metrics as the collector last computed them.
    MetricsHistory history() const;
    // Data that ended before `time` may be evicted (the caller keeps what its view and recordings need).
    void allow_eviction_before(TimeNs time) { collector_->allow_eviction_before(time); }
    // Waits until everything recorded so far is in the store (tests).
    void flush() { collector_->flush(); }
    // How far behind its newest data the trace is complete on every lane (TraceCollector::delivery_lag).
    TimeNs delivery_lag() const { return collector_->delivery_lag(); }

    // Applies `config` to the running pipeline, or starts a new run when the last one ended. Returns
    // an empty string when done, else a message that says why not (the config keeps running as it was).
    std::string apply(const PipelineConfig& config);

    // Runs end only by failing or by stop(); this says how many times apply() had to start over.
    int restarts() const { return restarts_; }
    uint64_t dropped_spans() const { return session_->trace().dropped(); }
    DeviceResources device_resources() const { return session_->device_resources(); }
    void stop() { session_->stop(); }
    // A teacher's pause (the train loop takes no new batch) and step-one-batch.
    void set_paused(bool paused) { session_->set_paused(paused); }
    void step() { session_->step(); }
    bool paused() const { return session_->paused(); }
    // What the status bar says of the run: "FAILED", "FINISHED" (a naive benchmark ends), "PAUSED" or
    // "RUNNING".
    const char* state_word() const;
    const Session& session() const { return *session_; }

    // The app never ends a run by time or count: those knobs are for headless runs.
    static PipelineConfig unbounded(PipelineConfig config);

  private:
    void start(const PipelineConfig& config);
    void update_history(const TraceStore& store);  // on the collector's thread

    TraceLimits limits_;
    std::unique_ptr<Session> session_;
    std::unique_ptr<TraceCollector> collector_;  // after the session: reset before it
    mutable std::mutex history_mutex_;
    MetricsHistory history_;
    std::atomic<int> batch_size_{1};
    std::atomic<double> slow_motion_{1};
    SessionStatus status_;
    int restarts_ = 0;
};

}  // namespace pinscope::gui
