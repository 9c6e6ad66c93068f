#pragma once
// Everything the desktop app knows and does, without a window: the live pipeline and its trace, the
// config being edited, the live metrics history and a recording in progress. The ImGui files only
// draw this and call its methods; the tests drive the same methods (the app's control API), so what
// a test proves about a slider holds for the slider.
//
// One thread (the GUI thread) owns an AppState and calls tick() at the start of each frame and
// end_frame() once the frame is built: in between, store() is a snapshot that the collector leaves
// alone, so every view of one frame reads the same trace.
#include <memory>
#include <optional>
#include <string>

#include "app/gui/model/config_editor.h"
#include "app/gui/model/live_session.h"
#include "app/gui/model/metrics_history.h"
#include "app/gui/model/prediction_preview.h"
#include "app/gui/model/recording.h"
#include "core/io/capture.h"
#include "core/pipeline/other_cpu_load.h"

namespace pinscope::gui {

class AppState {
  public:
    // Live: starts `config` (run unbounded). Throws as Session does.
    explicit AppState(const PipelineConfig& config);
    // A viewer of a finished trace (e.g. a synthetic one): no pipeline, the controls are inert.
    explicit AppState(TraceStore trace);
    // A viewer of a capture: its trace, config, device and metrics (the history of its plots is
    // computed here, so build it off the GUI thread for a big one).
    explicit AppState(Capture capture);
    ~AppState();

    // At the start of a frame. Hands a valid edited config to the pipeline, takes the frame's snapshot of
    // the trace and the live metrics, advances a recording and tells the collector what history nothing
    // needs any more. `view_start` is where the timeline's view begins: a paused view keeps its data.
    void tick(TimeNs now = now_ns(), std::optional<TimeNs> view_start = std::nullopt);
    // Once the frame is built: lets go of the snapshot, so the collector can store what came in.
    void end_frame() { frame_.reset(); }

    bool live() const { return live_ != nullptr; }
    // The capture being viewed, or nullptr (live, or a synthetic trace).
    const Capture* capture() const { return capture_ ? &*capture_ : nullptr; }
    // The device the data came from: the session's, or the capture's; nullptr for a synthetic trace.
    const DeviceInfo* device() const;
    // What the metric tiles show: live, the newest second; a capture, its whole recorded window.
    const MetricsSample& headline() const;
    // What a capture of what is shown says about the run (config, device, ...), without a window.
    CaptureInfo describe() const;
    // A capture of what is shown now over `window`: the live trace with the session's description, or
    // the viewed capture's spans there.
    Capture keep(Interval window) const;

    // Compare (a capture viewer only): `other` drawn under the capture, shifted in time so that batch
    // `batch` starts at the same moment in both, with both runs' metrics.
    struct Comparison {
        Capture other;
        int64_t batch = kNoBatch;
        TimeNs shift = 0;  // added to the other capture's times to put them on this one's axis
        Metrics mine, theirs;
    };
    // Aligns at the first batch both measured; throws std::logic_error when not viewing a capture.
    void compare_with(Capture other);
    // Aligns at `batch` if both captures have it; false (and nothing moves) otherwise.
    bool align_comparison(int64_t batch);
    void end_comparison() { comparison_.reset(); }
    const Comparison* comparison() const { return comparison_ ? &*comparison_ : nullptr; }
    LiveSession* session() { return live_.get(); }
    const LiveSession* session() const { return live_.get(); }
    // The trace as of this frame: between tick() and end_frame() for a live pipeline, always for a viewer.
    const TraceStore& store() const;

    ConfigEditor& editor() { return editor_; }
    const ConfigEditor& editor() const { return editor_; }
    // Why the last valid edit could not be applied (e.g. the device asked for is not there); empty if it was.
    const std::string& apply_error() const { return apply_error_; }

    // Preview before applying (live only): edits wait in the draft for editor().apply_edits() while
    // preview() says what they would change. The first time in a process, unless three recent
    // measurements of this host are kept (core/model/recent_host_rates.h), the live pipeline stops for a
    // few seconds while the predictor measures the host once more, and starts again after.
    void set_previewing(bool on);
    bool previewing() const { return editor_.previewing(); }
    PredictionPreview& preview() { return preview_; }
    // The live pipeline is stopped while the predictor measures this host.
    bool measuring_host() const { return stopped_for_measure_; }

    const MetricsHistory& history() const { return history_; }
    // Where the timeline's clock reads 0: when the run started (or the trace's first event).
    TimeNs time_origin() const;
    // Where a view that follows the run ends: the newest data, less the time the slowest source takes
    // to deliver (late GPU records), so no lane looks idle for want of data not yet there.
    TimeNs live_edge() const;
    int batch_size() const;
    // How many times slower than real time the trace runs (the slow_motion knob of the run shown).
    double slow_motion() const;

    // Starts a recording; throws std::invalid_argument for a bad request. Replaces a finished one.
    void start_recording(const RecordRequest& request, TimeNs now = now_ns());
    Recording* recording() { return recording_.get(); }
    void dismiss_recording();

    // How much history is kept behind the newest data when nothing else needs it.
    static constexpr TimeNs kKeep = 150 * kNsPerS;

  private:
    void allow_eviction(TimeNs view_start);

    std::unique_ptr<LiveSession> live_;
    std::optional<TraceCollector::Snapshot> frame_;
    TraceStore viewed_;
    std::optional<Capture> capture_;
    std::optional<MetricsSample> headline_;  // a capture's whole-window metrics
    std::optional<Comparison> comparison_;
    ConfigEditor editor_;
    std::string apply_error_;
    PredictionPreview preview_;
    bool stopped_for_measure_ = false;
    // What the app's frames and other programs take of the cores, for the preview's predictions: read in
    // every tick of a live run (at most once a window), but while the host is being measured.
    OtherCpuLoad others_;
    MetricsHistory history_;
    std::unique_ptr<Recording> recording_;
};

}  // namespace pinscope::gui
