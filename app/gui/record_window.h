#pragma once
// Record: the last N seconds, or the next N seconds, to a capture (.pinscope: the app, `pinscope
// stats`, `diff` and `export` open it) or a Chrome Trace file (.json: Perfetto UI, chrome://tracing),
// with progress while it captures and writes.
#include <filesystem>
#include <string>

#include "app/gui/file_dialog.h"
#include "app/gui/model/app_state.h"

namespace pinscope::gui {

class RecordWindow {
  public:
    void open() { open_ = true; }
    void open_file_dialog() { dialog_.open(file_); }
    void draw(AppState& state, Theme theme);

  private:
    void draw_controls(AppState& state, Theme theme);

    bool open_ = false;
    int mode_ = 0;  // 0: last N seconds, 1: next N seconds
    float seconds_ = 5.f;
    std::filesystem::path file_ = working_folder() / "recording.pinscope";
    std::string error_;
    FileDialog dialog_{{".pinscope", ".json"}};
};

}  // namespace pinscope::gui
