#include "app/gui/model/app_state.h"

#include <cassert>
#include <stdexcept>
#include <thread>

#include "core/config/config_json.h"
#include "core/io/metrics_json.h"
#include "core/lab/session_capture.h"

namespace pinscope::gui {
namespace {

// A paused view keeps its data, but not forever: the store's limits stay the real bound.
constexpr TimeNs kMaxHeldForView = 600 * kNsPerS;

}  // namespace

AppState::AppState(const PipelineConfig& config)
    : live_(std::make_unique<LiveSession>(config)), editor_(config, std::thread::hardware_concurrency()) {}

AppState::AppState(TraceStore trace) : viewed_(std::move(trace)), editor_(PipelineConfig{}) {
    history_.update(viewed_, editor_.applied().batch_size);
}

AppState::AppState(Capture capture)
    : capture_(std::move(capture)), editor_(capture_->info.config.value_or(PipelineConfig{})) {
    const Interval window{capture_->info.window.start, capture_->info.window.end};
    const Interval span = window.length() > 0 ? window : Interval{store().first_time(), store().last_time()};
    history_.replay(store(), batch_size(), span, capture_slow_motion(capture_->info));
    headline_ = sample_of(capture_metrics(*capture_), store(), span.end);
}

AppState::~AppState() {
    frame_.reset();
    recording_.reset();  // waits for a write in progress before the session goes
    if (live_) live_->stop();
}

const TraceStore& AppState::store() const {
    if (capture_) return capture_->store;
    if (!live_) return viewed_;
    assert(frame_ && "store() is read between tick() and end_frame()");
    return frame_->store();
}

int AppState::batch_size() const {
    if (capture_) return capture_batch_size(capture_->info);
    return live_ ? live_->status().config.batch_size : editor_.applied().batch_size;
}

double AppState::slow_motion() const {
    if (capture_) return capture_slow_motion(capture_->info);
    return live_ ? live_->status().config.slow_motion : editor_.applied().slow_motion;
}

const DeviceInfo* AppState::device() const {
    if (capture_) return &capture_->info.device;
    return live_ ? &live_->status().device : nullptr;
}

const MetricsSample& AppState::headline() const {
    static const MetricsSample kNothingYet;
    if (headline_) return *headline_;
    return history_.samples().empty() ? kNothingYet : history_.samples().back();
}

CaptureInfo AppState::describe() const {
    if (live_) return describe_session(live_->session());
    if (capture_) return capture_->info;
    CaptureInfo info;
    info.device.name = "synthetic trace";
    info.config = editor_.applied();
    return info;
}

Capture AppState::keep(Interval window) const {
    Capture kept;
    kept.info = describe();
    kept.info.window = MetricsWindow{window.start, window.end};
    kept.store = store().extract(window);
    kept.info.metrics = metrics_json(capture_metrics(kept));
    return kept;
}

namespace {

// The first batch both captures have that starts inside both measured windows: past start-up in each.
int64_t first_common_batch(const Capture& a, const Capture& b) {
    const auto [a_first, a_end] = a.store.batch_ids();
    const auto [b_first, b_end] = b.store.batch_ids();
    for (int64_t batch = std::max(a_first, b_first); batch < std::min(a_end, b_end); ++batch) {
        const auto ea = a.store.batch_extent(batch), eb = b.store.batch_extent(batch);
        if (ea && eb && ea->first_start >= a.info.window.start && eb->first_start >= b.info.window.start)
            return batch;
    }
    return kNoBatch;
}

}  // namespace

void AppState::compare_with(Capture other) {
    if (!capture_) throw std::logic_error("compare needs a capture on the left");
    Comparison c;
    c.mine = capture_metrics(*capture_);
    c.theirs = capture_metrics(other);
    c.other = std::move(other);
    comparison_ = std::move(c);
    // Without a batch in common (other workloads), the two runs start together.
    if (!align_comparison(first_common_batch(*capture_, comparison_->other)))
        comparison_->shift = store().first_time() - comparison_->other.store.first_time();
}

bool AppState::align_comparison(int64_t batch) {
    if (!comparison_ || batch == kNoBatch) return false;
    const auto mine = store().batch_extent(batch), theirs = comparison_->other.store.batch_extent(batch);
    if (!mine || !theirs) return false;
    comparison_->batch = batch;
    comparison_->shift = mine->first_start - theirs->first_start;
    return true;
}

TimeNs AppState::time_origin() const {
    if (live_ && live_->status().started) return live_->status().started;
    // A part of a big capture keeps the whole capture's clock: 300 s in reads 300 s.
    if (capture_ && capture_->info.loaded_range) return capture_->info.window.start;
    return store().first_time();
}

TimeNs AppState::live_edge() const {
    constexpr TimeNs kMostTrailed = kNsPerS;  // beyond this a source is broken, not late: show what came
    const TimeNs lag = live_ ? std::min(live_->delivery_lag(), kMostTrailed) : 0;
    return store().latest_span_end() - lag;
}

void AppState::tick(TimeNs now, std::optional<TimeNs> view_start) {
    if (!live_) {
        if (recording_) recording_->update(store(), now);
        return;
    }
    frame_.reset();
    if (stopped_for_measure_ && !preview_.preparing()) {
        stopped_for_measure_ = false;
        apply_error_ = live_->apply(editor_.applied());  // starts again with what ran
        others_.restart();  // the measurement's own threads were the "others" of that window
    }
    if (!stopped_for_measure_) {
        others_.sample();
        if (others_.cores()) preview_.set_others(*others_.cores());
        if (std::optional<PipelineConfig> change = editor_.take_change())
            apply_error_ = live_->apply(*change);
    }
    live_->refresh();
    frame_.emplace(live_->read());
    history_ = live_->history();
    if (recording_) recording_->update(store(), now);
    allow_eviction(view_start.value_or(now));
}

void AppState::set_previewing(bool on) {
    if (!live_) return;
    editor_.set_previewing(on);
    if (on && preview_.prepare()) {
        live_->stop();  // the host's own rates, not what the pipeline leaves of them
        stopped_for_measure_ = true;
    }
}

// The collector evicts in large steps on its own thread; this only says how far back it may cut.
void AppState::allow_eviction(TimeNs view_start) {
    const TimeNs latest = store().latest_span_end();
    TimeNs cut = latest - kKeep;
    if (view_start < cut) cut = std::max(view_start, latest - kMaxHeldForView);
    if (recording_ && !recording_->finished()) cut = std::min(cut, recording_->window().start);
    live_->allow_eviction_before(cut);
}

void AppState::start_recording(const RecordRequest& request, TimeNs now) {
    if (recording_ && !recording_->finished())
        throw std::invalid_argument("a recording is already in progress");
    RecordContext context{describe()};
    recording_.reset();
    recording_ = std::make_unique<Recording>(request, std::move(context), now, store().latest_span_end());
    recording_->update(store(), now);
}

void AppState::dismiss_recording() {
    if (recording_ && recording_->finished()) recording_.reset();
}

}  // namespace pinscope::gui
