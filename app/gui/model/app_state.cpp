#include "app/gui/model/app_state.h"

#include <stdexcept>
#include <thread>

#include "app/gui/model/trace_window.h"
#include "core/config/config_json.h"

namespace pinscope::gui {
namespace {

// Eviction walks every lane; doing it every frame would cost what culling saves.
constexpr TimeNs kEvictEvery = 2 * kNsPerS;
// Eviction walks every span of every lane, so it waits until there is this much to cut: a pass costs
// one frame in thousands instead of one in a hundred.
constexpr TimeNs kEvictAtLeast = 30 * kNsPerS;
// A paused view keeps its data, but not forever: the store's limits stay the real bound.
constexpr TimeNs kMaxHeldForView = 600 * kNsPerS;

}  // namespace

AppState::AppState(const PipelineConfig& config)
    : live_(std::make_unique<LiveSession>(config)), editor_(config, std::thread::hardware_concurrency()) {}

AppState::AppState(TraceStore trace) : viewed_(std::move(trace)), editor_(PipelineConfig{}) {
    history_.update(viewed_, editor_.applied().batch_size);
}

AppState::~AppState() {
    recording_.reset();  // waits for a write in progress before the session goes
    if (live_) live_->stop();
}

int AppState::batch_size() const {
    return live_ ? live_->status().config.batch_size : editor_.applied().batch_size;
}

TimeNs AppState::time_origin() const {
    if (live_ && live_->status().started) return live_->status().started;
    return store().first_time();
}

void AppState::tick(TimeNs now, std::optional<TimeNs> view_start) {
    if (!live_) {
        if (recording_) recording_->update(viewed_, now);
        return;
    }
    if (std::optional<PipelineConfig> change = editor_.take_change()) apply_error_ = live_->apply(*change);
    live_->collect();
    if (live_->restarts() != restarts_seen_) {  // a new run starts with an empty store
        restarts_seen_ = live_->restarts();
        history_.clear();
    }
    history_.update(live_->store(), live_->status().config.batch_size);
    if (recording_) recording_->update(live_->store(), now);
    evict(view_start.value_or(now));
}

void AppState::evict(TimeNs view_start) {
    const TimeNs latest = latest_span_end(live_->store());
    if (latest - last_eviction_ < kEvictEvery) return;
    last_eviction_ = latest;
    TimeNs cut = latest - kKeep;
    if (view_start < cut) cut = std::max(view_start, latest - kMaxHeldForView);
    if (recording_ && !recording_->finished()) cut = std::min(cut, recording_->window().start);
    if (cut - live_->store().first_time() >= kEvictAtLeast) live_->evict_before(cut);
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
    recording_ = std::make_unique<Recording>(request, std::move(context), now, latest_span_end(store()));
    recording_->update(store(), now);
}

void AppState::dismiss_recording() {
    if (recording_ && recording_->finished()) recording_.reset();
}

}  // namespace pinscope::gui
