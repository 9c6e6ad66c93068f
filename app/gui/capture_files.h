#pragma once
// The File menu's work with captures and exports: Open (a dialog, Open recent, a file dropped on the
// window, --open), Compare with, Save capture, Export view, and the A/B snapshots of a live run. Loads
// run in the background with a progress window that can cancel; what a load produces is handed to the
// app between frames (take_view, take_compare), never in the middle of one.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "app/gui/file_dialog.h"
#include "app/gui/model/app_state.h"
#include "app/gui/model/capture_loader.h"
#include "app/gui/model/recent_files.h"
#include "app/gui/model/view_export.h"

namespace pinscope::gui {

class CaptureFiles {
  public:
    // Starts loading `file` to view it (replacing what is shown), or to compare it with the capture
    // shown. A load in progress is cancelled.
    void open(const std::filesystem::path& file,
              CaptureLoader::Purpose purpose = CaptureLoader::Purpose::view,
              std::optional<CaptureRange> range = std::nullopt);

    // The File menu's capture items, for what `state` shows; `view` is the timeline's range now.
    void menu_items(AppState& state, Interval view);
    // What the menu's shortcuts do: Ctrl+O and Ctrl+E.
    void choose_file_to_open();
    void open_export(const AppState& state) { export_open_ = state.store().span_count() > 0; }
    // Dialogs, the progress of a load, the export window, messages.
    void draw(AppState& state, Interval view, Theme theme);

    // Between frames: a finished load, or a comparison made from the live run's A and B snapshots.
    std::unique_ptr<AppState> take_view();
    std::optional<Capture> take_compare();
    // Asked for in the menu: run the viewed capture's config live.
    bool take_run_live() { return std::exchange(run_live_, false); }

    bool loading() const { return loader_ != nullptr; }
    // Shown as the result of a file action, until dismissed.
    void report_error(std::string error) { error_ = std::move(error); }
    const std::string& error() const { return error_; }

  private:
    void poll_loader();
    void progress_window();
    void export_window(AppState& state, Interval view, Theme theme);
    void keep_snapshot(AppState& state, Interval view);

    RecentFiles recent_;
    std::unique_ptr<CaptureLoader> loader_;
    std::unique_ptr<AppState> loaded_view_;
    std::optional<Capture> loaded_compare_;
    FileDialog open_dialog_{{".pinscope"}, FileBrowser::Mode::open};
    CaptureLoader::Purpose dialog_purpose_ = CaptureLoader::Purpose::view;
    FileDialog save_dialog_{{".pinscope"}};
    FileDialog export_dialog_{{".png", ".svg", ".json", ".csv"}};
    std::string error_, message_;

    // Snapshots of a live run to compare: A kept earlier, B the last seconds when compared.
    std::optional<Capture> kept_a_;
    std::unique_ptr<AppState> compared_live_;
    float snapshot_seconds_ = 2.f;

    bool export_open_ = false;
    ExportRequest export_request_;
    std::unique_ptr<ViewExport> export_;
    bool run_live_ = false;
};

}  // namespace pinscope::gui
