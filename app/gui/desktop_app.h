#pragma once
// The app's frame loop and layout: menu bar, Controls on the left, Metrics on top, the Timeline
// filling the rest, the status bar at the bottom; Record and the file dialog float above. Each frame
// ticks the AppState (collect, apply edits, metrics), builds the ImGui frame and draws it.
#include "app/gui/app_window.h"
#include "app/gui/controls_window.h"
#include "app/gui/gui_options.h"
#include "app/gui/model/app_state.h"
#include "app/gui/model/frame_stats.h"
#include "app/gui/record_window.h"
#include "app/gui/timeline_window.h"
#include "app/gui/ui_style.h"

namespace pinscope::gui {

class DesktopApp {
  public:
    DesktopApp(AppState& state, AppWindow& window, const GuiOptions& options);
    // Runs until the window closes or --frames frames are done; returns the exit code.
    int run();

  private:
    void build_frame();
    void menu_bar();
    void shortcuts();
    void shortcuts_window();
    void report_frame_stats() const;
    std::optional<ImVec2> pointer() const;
    void settle_zoom();
    void show_at_its_zoom(const Preset& preset);

    AppState& state_;
    AppWindow& window_;
    GuiOptions options_;
    UiStyle style_;
    UiSettings wanted_;
    ControlsWindow controls_;
    TimelineWindow timeline_;
    RecordWindow record_;
    FrameStats cpu_stats_;            // the GUI thread's CPU time per frame build
    FrameStats wall_stats_;           // wall time, which other threads and processes inflate
    size_t spans_in_last_frame_ = 0;  // for the report after the last frame
    bool controls_collapsed_ = false;
    bool zoom_settled_ = false;  // a zoom was chosen (by the user, a preset, a flag) or suggested once
    bool show_help_ = false;
    bool quit_ = false;
};

}  // namespace pinscope::gui
