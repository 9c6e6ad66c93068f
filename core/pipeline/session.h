#pragma once
// A running pipeline: a train-loop thread that pulls batches from a DataLoader and feeds them to the
// GPU, with everything recorded into one Trace. This is the control API the CLI, the desktop app and
// the tests drive:
// - start() runs until the config's seconds or batches are reached, stop(), or a failure. The seconds and
//   stop() take effect at once whatever the work in hand: the loader is interrupted and the device cuts
//   what it is doing (Device::cut_work), so a 10 s kernel does not hold a 1 s run;
// - reconfigure() hands a new config to the running loop, which drains the current pipeline
//   (workers joined, GPU work finished, every buffer returned) and builds the new one;
// - status() may be called from any thread at any time.
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/config/pipeline_config.h"
#include "core/device/device.h"
#include "core/device/gpu_trace_report.h"
#include "core/pipeline/dataset.h"
#include "core/pipeline/pipeline_thread.h"
#include "core/pipeline/session_parts.h"
#include "core/trace/trace.h"

namespace pinscope {

class DataLoader;

enum class SessionState { idle, running, finished, stopped, failed };

struct SessionStatus {
    SessionState state = SessionState::idle;
    PipelineConfig config;    // the config in force now
    uint64_t generation = 0;  // how many pipelines have been built (1 + reconfigurations applied)
    int64_t batches = 0;      // batches handed to the GPU, over every generation
    TimeNs started = 0;       // when start() was called
    TimeNs elapsed = 0;
    DeviceInfo device;
    std::string device_why;             // why this device was chosen
    std::string error;                  // set when state == failed
    std::vector<std::string> warnings;  // from validation, e.g. more workers than cores
    DatasetReport dataset;  // a folder of images: decode times, files skipped (at each pipeline's end)
};

class Session {
  public:
    // Throws std::invalid_argument (with validate()'s first error) for a config that cannot run, and
    // DeviceError / CalibrationError when the device cannot be made. Built from session_parts(): a fresh
    // trace, the config's dataset and device.
    explicit Session(PipelineConfig config);
    // Built from `parts` (session_parts.h): a trace shared with other sessions, a fake dataset or device.
    Session(PipelineConfig config, SessionParts parts);
    ~Session();
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    void start();
    // Validates, then applies at the next batch boundary. Throws std::invalid_argument for a bad config
    // (the running pipeline is left as it is).
    void reconfigure(const PipelineConfig& config);
    void stop();
    // A teacher's pause: while paused the train loop takes no new batch (the GPU finishes what it has, the
    // workers fill the prefetch queue and wait); step() lets exactly one more batch through.
    void set_paused(bool paused);
    void step();
    bool paused() const;
    // Waits until the run ends (bounds reached, stopped or failed) or the timeout passes; true if ended.
    bool wait(TimeNs timeout_ns = -1);

    SessionStatus status() const;
    // The device's live resources: after stop(), every count is back to zero unless something leaked.
    DeviceResources device_resources() const;
    // For a real GPU: how its spans were recorded and how many records were dropped or untimed.
    std::optional<GpuTraceReport> gpu_trace_report() const;
    Trace& trace() { return *parts_.trace; }
    const Trace& trace() const { return *parts_.trace; }

  private:
    void run();
    void run_generation(const PipelineConfig& config, Recorder& recorder, LaneId lane);
    void run_resident(const PipelineConfig& config, Recorder& recorder, LaneId lane);
    void run_naive_benchmark(const PipelineConfig& config, Recorder& recorder, LaneId lane);
    void finish_step(const PipelineConfig& config);  // the step's own host work, then count the batch
    bool bounds_reached(const PipelineConfig& config) const;
    // On its own thread: at the run's seconds, interrupts the loader and cuts the device's work.
    void watch_deadline(TimeNs deadline);
    void cut_everything_locked();  // under mutex_: interrupt the loader, cut the device, open the gate
    // Once per batch, one lock: waits while paused until a step is granted (and takes it); false when the
    // loop must end for a stop or a new config.
    bool pass_gate();
    void replace_device_if_needed(const PipelineConfig& config);
    void finish(SessionState state, std::string error = {});

    SessionParts parts_;  // first: the trace outlives everything that records into it
    Gauge pinned_gauge_;

    mutable std::mutex mutex_;  // guards the fields below that other threads read
    std::condition_variable ended_;
    PipelineConfig config_;
    std::optional<PipelineConfig> pending_;
    SessionStatus status_;
    DataLoader* live_loader_ = nullptr;  // for interrupting a blocked next() from another thread
    bool paused_ = false;
    int64_t steps_granted_ = 0;
    std::condition_variable gate_;

    std::unique_ptr<Device> device_;  // owned by the loop thread once started
    std::atomic<bool> stop_requested_{false};
    std::atomic<bool> deadline_passed_{false};
    std::atomic<int64_t> batches_{0};
    int64_t next_batch_id_ = 0;
    PipelineThread loop_thread_;
    PipelineThread deadline_watch_;  // only for a run with seconds
};

std::string_view to_string(SessionState state);

}  // namespace pinscope
