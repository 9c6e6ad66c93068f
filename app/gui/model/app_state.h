#pragma once
// Everything the desktop app knows and does, without a window: the live pipeline and its trace, the
// config being edited, the live metrics history and a recording in progress. The ImGui files only
// draw this and call its methods; the tests drive the same methods (the app's control API), so what
// a test proves about a slider holds for the slider.
//
// One thread (the GUI thread) owns an AppState and calls tick() once per frame.
#include <memory>
#include <optional>
#include <string>

#include "app/gui/model/config_editor.h"
#include "app/gui/model/live_session.h"
#include "app/gui/model/metrics_history.h"
#include "app/gui/model/recording.h"

namespace pinscope::gui {

class AppState {
  public:
    // Live: starts `config` (run unbounded). Throws as Session does.
    explicit AppState(const PipelineConfig& config);
    // A viewer of a finished trace (e.g. a synthetic one): no pipeline, the controls are inert.
    explicit AppState(TraceStore trace);
    ~AppState();

    // Once per frame. Hands a valid edited config to the pipeline, collects new spans, samples the
    // metrics, advances a recording and, now and then, evicts history that nothing needs any more.
    // `view_start` is where the timeline's view begins: a paused view keeps its data.
    void tick(TimeNs now = now_ns(), std::optional<TimeNs> view_start = std::nullopt);

    bool live() const { return live_ != nullptr; }
    LiveSession* session() { return live_.get(); }
    const LiveSession* session() const { return live_.get(); }
    const TraceStore& store() const { return live_ ? live_->store() : viewed_; }

    ConfigEditor& editor() { return editor_; }
    const ConfigEditor& editor() const { return editor_; }
    // Why the last valid edit could not be applied (e.g. the device asked for is not there); empty if it was.
    const std::string& apply_error() const { return apply_error_; }

    const MetricsHistory& history() const { return history_; }
    // Where the timeline's clock reads 0: when the run started (or the trace's first event).
    TimeNs time_origin() const;
    int batch_size() const;

    // Starts a recording; throws std::invalid_argument for a bad request. Replaces a finished one.
    void start_recording(const RecordRequest& request, TimeNs now = now_ns());
    Recording* recording() { return recording_.get(); }
    void dismiss_recording();

    // How much history is kept behind the newest data when nothing else needs it.
    static constexpr TimeNs kKeep = 150 * kNsPerS;

  private:
    void evict(TimeNs view_start);

    std::unique_ptr<LiveSession> live_;
    TraceStore viewed_;
    ConfigEditor editor_;
    std::string apply_error_;
    MetricsHistory history_;
    std::unique_ptr<Recording> recording_;
    TimeNs last_eviction_ = 0;
    int restarts_seen_ = 0;
};

}  // namespace pinscope::gui
