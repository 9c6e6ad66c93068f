#include "core/pipeline/session.h"

#include <optional>
#include <stdexcept>
#include <thread>

#include "core/config/validate.h"
#include "core/pipeline/data_loader.h"
#include "core/pipeline/dataset.h"
#include "core/pipeline/naive_benchmark.h"
#include "core/pipeline/train_loop.h"
#include "core/trace/thread_lane.h"

namespace pinscope {
namespace {

Validation validate_or_throw(const PipelineConfig& config) {
    Validation validation = validate(config, std::thread::hardware_concurrency());
    if (!validation.ok()) throw std::invalid_argument(describe(validation.errors.front()));
    return validation;
}

std::vector<std::string> describe_all(const std::vector<ConfigIssue>& issues) {
    std::vector<std::string> lines;
    for (const ConfigIssue& issue : issues) lines.push_back(describe(issue));
    return lines;
}

bool device_differs(const PipelineConfig& a, const PipelineConfig& b) {
    return a.device != b.device || a.calibration != b.calibration || a.cupti != b.cupti ||
           a.copy_engines != b.copy_engines || a.slow_motion != b.slow_motion || a.cold_start ||
           b.cold_start || a.naive_benchmark ||
           b.naive_benchmark;  // a cold start needs a fresh device every time
}

}  // namespace

std::string_view to_string(SessionState state) {
    constexpr std::string_view kNames[] = {"idle", "running", "finished", "stopped", "failed"};
    return kNames[static_cast<size_t>(state)];
}

Session::Session(PipelineConfig config) : Session(std::move(config), session_parts()) {}

Session::Session(PipelineConfig config, SessionParts parts)
    : parts_(std::move(parts)),
      pinned_gauge_(*parts_.trace, CounterKind::pinned_bytes),
      config_(std::move(config)) {
    status_.warnings = describe_all(validate_or_throw(config_).warnings);
    parts_.dataset(config_);  // a dataset that cannot be made (no such folder) is refused now, not mid-run
    DeviceSelection selection = parts_.device(config_, *parts_.trace);
    device_ = std::move(selection.device);
    status_.device = device_->info();
    status_.device_why = std::move(selection.why);
    status_.config = config_;
}

Session::~Session() {
    stop();
}

void Session::start() {
    std::lock_guard lock(mutex_);
    if (status_.state != SessionState::idle) return;
    status_.state = SessionState::running;
    status_.started = now_ns();
    loop_thread_ = PipelineThread("train loop", [this] { run(); });
    if (config_.seconds > 0) {
        const TimeNs deadline = status_.started + static_cast<TimeNs>(config_.seconds * 1e9);
        deadline_watch_ = PipelineThread("deadline", [this, deadline] { watch_deadline(deadline); });
    }
}

void Session::watch_deadline(TimeNs deadline) {
    std::unique_lock lock(mutex_);
    const auto at = std::chrono::steady_clock::time_point(std::chrono::nanoseconds(deadline));
    const bool ended = ended_.wait_until(
        lock, at, [&] { return status_.state != SessionState::running || stop_requested_ || pending_; });
    if (ended) return;  // stopped, failed or finished first; a new config has bounds of its own
    deadline_passed_ = true;
    cut_everything_locked();
}

void Session::cut_everything_locked() {
    if (live_loader_) live_loader_->interrupt();
    if (device_) device_->cut_work();
    gate_.notify_all();
}

void Session::reconfigure(const PipelineConfig& config) {
    Validation validation = validate_or_throw(config);
    parts_.dataset(config);  // throws, as the constructor does, for a dataset that cannot be made
    std::lock_guard lock(mutex_);
    pending_ = config;
    status_.warnings = describe_all(validation.warnings);
    if (live_loader_) live_loader_->interrupt();  // wakes a train loop blocked on a slow batch
    gate_.notify_all();
}

void Session::set_paused(bool paused) {
    {
        std::lock_guard lock(mutex_);
        paused_ = paused;
        steps_granted_ = 0;
    }
    gate_.notify_all();
}

void Session::step() {
    {
        std::lock_guard lock(mutex_);
        ++steps_granted_;
    }
    gate_.notify_all();
}

bool Session::paused() const {
    std::lock_guard lock(mutex_);
    return paused_;
}

bool Session::pass_gate() {
    std::unique_lock lock(mutex_);
    gate_.wait(lock, [&] {
        return !paused_ || steps_granted_ > 0 || stop_requested_ || deadline_passed_ || pending_;
    });
    if (stop_requested_ || deadline_passed_ || pending_) return false;
    if (paused_) --steps_granted_;  // the wait saw a step granted
    return true;
}

void Session::stop() {
    {
        std::lock_guard lock(mutex_);
        stop_requested_ = true;
        cut_everything_locked();
        ended_.notify_all();  // the deadline watch has nothing left to do
    }
    loop_thread_.join();
    deadline_watch_.join();
    std::lock_guard lock(mutex_);
    if (status_.state == SessionState::running) status_.state = SessionState::stopped;
    ended_.notify_all();
}

bool Session::wait(TimeNs timeout_ns) {
    std::unique_lock lock(mutex_);
    auto ended = [&] {
        return status_.state != SessionState::running && status_.state != SessionState::idle;
    };
    if (timeout_ns < 0) {
        ended_.wait(lock, ended);
        return true;
    }
    return ended_.wait_for(lock, std::chrono::nanoseconds(timeout_ns), ended);
}

SessionStatus Session::status() const {
    std::lock_guard lock(mutex_);
    SessionStatus status = status_;
    status.batches = batches_.load();
    if (status.started) status.elapsed = now_ns() - status.started;
    return status;
}

DeviceResources Session::device_resources() const {
    std::lock_guard lock(mutex_);
    return device_ ? device_->resources() : DeviceResources{};
}

std::optional<GpuTraceReport> Session::gpu_trace_report() const {
    std::lock_guard lock(mutex_);
    return device_ ? pinscope::gpu_trace_report(*device_) : std::nullopt;
}

void Session::finish(SessionState state, std::string error) {
    std::lock_guard lock(mutex_);
    status_.state = state;
    status_.error = std::move(error);
    status_.elapsed = now_ns() - status_.started;
    ended_.notify_all();
}

bool Session::bounds_reached(const PipelineConfig& config) const {
    if (deadline_passed_) return true;
    if (config.batches > 0 && batches_.load() >= config.batches) return true;
    return config.seconds > 0 && now_ns() - status_.started >= static_cast<TimeNs>(config.seconds * 1e9);
}

void Session::replace_device_if_needed(const PipelineConfig& config) {
    PipelineConfig current;
    {
        std::lock_guard lock(mutex_);
        current = status_.config;
    }
    if (!device_differs(current, config) && device_) return;
    {
        std::lock_guard lock(mutex_);
        device_.reset();  // no pipeline holds any of its resources between generations
    }
    DeviceSelection selection = parts_.device(config, *parts_.trace);
    std::lock_guard lock(mutex_);
    device_ = std::move(selection.device);
    status_.device = device_->info();
    status_.device_why = std::move(selection.why);
}

void Session::run() {
    std::shared_ptr<Recorder> recorder = parts_.trace->make_recorder();
    const LaneId lane = parts_.trace->lanes().lane(LaneRole::main);
    this_thread_lane() = lane;
    PipelineConfig config = config_;
    try {
        for (;;) {
            run_generation(config, *recorder, lane);
            if (stop_requested_) return finish(SessionState::stopped);
            if (config.naive_benchmark) return finish(SessionState::finished);  // its one copy is the run
            if (bounds_reached(config)) return finish(SessionState::finished);
            std::lock_guard lock(mutex_);
            if (!pending_) continue;  // interrupted without a new config: build the same again
            config = *std::exchange(pending_, std::nullopt);
        }
    } catch (const DatasetError& error) {  // num_workers=0: the dataset's own exception, as in PyTorch
        finish(SessionState::failed, error.type() + ": " + error.what());
    } catch (const std::exception& error) {
        finish(SessionState::failed, error.what());
    }
}

// One pipeline, from build to drain. Returns when the run should end or a new config is pending.
void Session::run_generation(const PipelineConfig& config, Recorder& recorder, LaneId lane) {
    replace_device_if_needed(config);
    {
        std::lock_guard lock(mutex_);
        status_.config = config;
        ++status_.generation;
    }
    device_->set_pinned_budget(config.pinned_budget_mb << 20);
    if (config.naive_benchmark) return run_naive_benchmark(config, recorder, lane);
    if (config.data_on_gpu) return run_resident(config, recorder, lane);
    const std::unique_ptr<Dataset> dataset = parts_.dataset(config);
    LoaderContext context{*device_, *parts_.trace,  *dataset,       recorder,
                          lane,     &pinned_gauge_, next_batch_id_, TrainLoop::batches_in_flight(config) + 1};
    DataLoader loader(config, context);
    // Published so that stop() and reconfigure() can wake a blocked next(); withdrawn before the
    // loader is destroyed, on every way out of this scope.
    struct Publication {
        Session& session;
        Publication(Session& s, DataLoader* loader) : session(s) {
            std::lock_guard lock(session.mutex_);
            session.live_loader_ = loader;
            if (session.stop_requested_ || session.deadline_passed_ || session.pending_) loader->interrupt();
        }
        ~Publication() {
            std::lock_guard lock(session.mutex_);
            session.live_loader_ = nullptr;
        }
    } publication(*this, &loader);
    TrainLoop train(config, *device_, recorder, lane);  // destroyed first: it holds the loader's buffers

    while (!bounds_reached(config)) {
        if (!pass_gate()) break;  // a stop, or a new config to build (paused or not)
        std::optional<LoadedBatch> batch = loader.next();
        if (!batch) break;  // interrupted: stop or reconfigure
        train.submit(std::move(*batch));
        finish_step(config);
    }
    next_batch_id_ += loader.dispatched();
    std::lock_guard lock(mutex_);
    status_.dataset = dataset->report();
}

// The rest of a real step on the host after its batch is submitted (the model's Python, its launches, the
// optimizer): the next batch is asked for only after it, as a train loop's next() comes after its step.
void Session::finish_step(const PipelineConfig& config) {
    if (config.step_host_us > 0) spend_cpu_us(config.step_host_us * config.slow_motion, stop_requested_);
    ++batches_;
}

// data_on_gpu: the ideal every run is measured against. No dataset, no workers, no pinned buffers and no
// H2D: each step hands the train loop a batch already in device memory, so only its kernels (and D2H) run.
void Session::run_resident(const PipelineConfig& config, Recorder& recorder, LaneId lane) {
    TrainLoop train(config, *device_, recorder, lane);
    int64_t made = 0;
    while (!bounds_reached(config)) {
        if (!pass_gate()) break;  // a stop, or a new config to build (paused or not)
        LoadedBatch batch;
        batch.index = made;
        batch.id = next_batch_id_ + made;
        batch.bytes = static_cast<size_t>(config.batch_bytes());
        ++made;
        train.submit(std::move(batch));
        finish_step(config);
    }
    next_batch_id_ += made;
}

void Session::run_naive_benchmark(const PipelineConfig& config, Recorder& recorder, LaneId lane) {
    pinscope::run_naive_benchmark(config, *device_, *parts_.trace, recorder, lane, next_batch_id_++);
    ++batches_;
}

}  // namespace pinscope
