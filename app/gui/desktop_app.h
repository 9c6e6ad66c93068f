#pragma once
// The app's frame loop and layout: menu bar, Controls on the left (Compare, while two captures are
// stacked), Metrics on top, the Timeline filling the rest, the status bar at the bottom; Record, the
// file dialogs and Export float above. Each frame ticks the AppState (collect, apply edits, metrics),
// builds the ImGui frame and draws it. What the app shows (a live run, a capture) is replaced only
// between frames: opening a capture, comparing, or running a capture's config live.
#include <memory>
#include <string>
#include <vector>

#include "app/gui/advisor_window.h"
#include "app/gui/app_window.h"
#include "app/gui/capture_files.h"
#include "app/gui/controls_window.h"
#include "app/gui/gui_options.h"
#include "app/gui/lesson_panel.h"
#include "app/gui/model/app_state.h"
#include "app/gui/model/frame_stats.h"
#include "app/gui/record_window.h"
#include "app/gui/sweep_window.h"
#include "app/gui/timeline_window.h"
#include "app/gui/ui_style.h"

namespace pinscope::gui {

class DesktopApp {
  public:
    // `machine`: the config the app was started with, whose machine knobs (device, calibration) a
    // capture's config keeps when it is run live here.
    DesktopApp(std::unique_ptr<AppState> state, AppWindow& window, const GuiOptions& options,
               PipelineConfig machine = {});
    // Runs until the window closes or --frames frames are done; returns the exit code.
    int run();

  private:
    void build_frame();
    void menu_bar();
    void shortcuts();
    void shortcuts_window();
    void report_frame_stats() const;
    void report_lesson();
    std::string span_drawing() const;
    std::optional<ImVec2> pointer() const;
    void settle_zoom();
    void set_presentation(bool on);
    void pipeline_keys();
    void show_at_its_zoom(const Preset& preset);
    // Between frames: a capture opened or compared, a capture's config run live, files dropped.
    void take_changes();
    void hold_for_preview(const std::vector<std::string>& edits);
    void replace_state(std::unique_ptr<AppState> state);
    void run_live(PipelineConfig config);

    std::unique_ptr<AppState> state_;
    PipelineConfig machine_;
    CaptureFiles files_;
    AppWindow& window_;
    GuiOptions options_;
    UiStyle style_;
    UiSettings wanted_;
    ControlsWindow controls_;
    std::unique_ptr<SpanRenderer> span_renderer_;  // null with --renderer drawlist
    TimelineWindow timeline_;
    RecordWindow record_;
    SweepWindow sweep_;
    LessonPanel lessons_;
    AdvisorWindow advisor_;
    FrameStats cpu_stats_;            // the GUI thread's CPU time per frame build
    FrameStats wall_stats_;           // wall time, which other threads and processes inflate
    size_t spans_in_last_frame_ = 0;  // for the report after the last frame
    int counted_frame_ = 0;           // of --frames, the one being built (0 while it does not count)
    bool controls_collapsed_ = false;
    bool zoom_settled_ = false;  // a zoom was chosen (by the user, a preset, a flag) or suggested once
    bool show_help_ = false;
    bool lesson_reported_ = false;
    bool show_lessons_ = false;  // the Lessons panel in the Controls panel's place
    bool presentation_ = false;
    float font_before_presentation_ = 1.f;
    bool quit_ = false;
};

}  // namespace pinscope::gui
