#pragma once
// The app's running pipeline: a Session that runs unbounded, and the TraceStore the GUI thread
// collects it into once per frame (Tracy's split: the pipeline's threads record, the view only reads
// the packed, sorted store). A config change goes to the running pipeline (Session::reconfigure);
// after a run has failed (a worker error), applying a config starts a fresh run instead.
#include <memory>
#include <string>

#include "core/pipeline/session.h"
#include "core/trace/trace_store.h"

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

    // Once per frame, on the thread that reads store(): moves everything recorded since into the store.
    void collect();
    // Drops data older than `time` (the caller keeps what its view and its recordings need).
    void evict_before(TimeNs time) { store_.evict_before(time); }

    const TraceStore& store() const { return store_; }
    // As of the last collect(): one lock per frame, not one per widget.
    const SessionStatus& status() const { return status_; }

    // Applies `config` to the running pipeline, or starts a new run when the last one ended. Returns
    // an empty string when done, else a message that says why not (the config keeps running as it was).
    std::string apply(const PipelineConfig& config);

    // Runs end only by failing or by stop(); this says how many times apply() had to start over.
    int restarts() const { return restarts_; }
    uint64_t dropped_spans() const { return session_->trace().dropped(); }
    DeviceResources device_resources() const { return session_->device_resources(); }
    void stop() { session_->stop(); }

    // The app never ends a run by time or count: those knobs are for headless runs.
    static PipelineConfig unbounded(PipelineConfig config);

  private:
    void start(const PipelineConfig& config);

    TraceLimits limits_;
    std::unique_ptr<Session> session_;
    TraceStore store_;
    SessionStatus status_;
    int restarts_ = 0;
};

}  // namespace pinscope::gui
