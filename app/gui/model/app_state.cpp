#include "app/gui/model/app_state.h"

#include <cassert>
#include <stdexcept>
#include <thread>

#include "core/config/config_json.h"

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

AppState::~AppState() {
    frame_.reset();
    recording_.reset();  // waits for a write in progress before the session goes
    if (live_) live_->stop();
}

const TraceStore& AppState::store() const {
    if (!live_) return viewed_;
    assert(frame_ && "store() is read between tick() and end_frame()");
    return frame_->store();
}

int AppState::batch_size() const {
    return live_ ? live_->status().config.batch_size : editor_.applied().batch_size;
}

TimeNs AppState::time_origin() const {
    if (live_ && live_->status().started) return live_->status().started;
    return store().first_time();
}

TimeNs AppState::live_edge() const {
    constexpr TimeNs kMostTrailed = kNsPerS;  // beyond this a source is broken, not late: show what came
    const TimeNs lag = live_ ? std::min(live_->delivery_lag(), kMostTrailed) : 0;
    return store().latest_span_end() - lag;
}

void AppState::tick(TimeNs now, std::optional<TimeNs> view_start) {
    if (!live_) {
        if (recording_) recording_->update(viewed_, now);
        return;
    }
    frame_.reset();
    if (std::optional<PipelineConfig> change = editor_.take_change()) apply_error_ = live_->apply(*change);
    live_->refresh();
    frame_.emplace(live_->read());
    history_ = live_->history();
    if (recording_) recording_->update(store(), now);
    allow_eviction(view_start.value_or(now));
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
    RecordContext context;
    context.batch_size = batch_size();
    if (live_) {
        context.device_name = live_->status().device.name;
        context.config = config_to_json(live_->status().config);
    } else {
        context.device_name = "synthetic trace";
    }
    recording_.reset();
    recording_ = std::make_unique<Recording>(request, std::move(context), now, store().latest_span_end());
    recording_->update(store(), now);
}

void AppState::dismiss_recording() {
    if (recording_ && recording_->finished()) recording_.reset();
}

}  // namespace pinscope::gui
