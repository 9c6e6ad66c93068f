#pragma once
// The Controls panel: a widget for every knob, named as in PyTorch, with presets and a reset. Each
// edit goes through ConfigEditor: a valid config reaches the running pipeline at the next frame; an
// invalid one stays a draft with validate()'s message under the knob it names.
#include <string>

#include <imgui.h>

#include "app/gui/model/app_state.h"
#include "app/gui/model/span_palette.h"

namespace pinscope::gui {

class ControlsWindow {
  public:
    void draw(AppState& state, Theme theme, ImVec2 pos, ImVec2 size);

  private:
    void presets(ConfigEditor& editor);
    void loader_knobs(ConfigEditor& editor);
    void workload_knobs(ConfigEditor& editor);
    void gpu_knobs(ConfigEditor& editor);
    void issues(const ConfigEditor& editor, const char* option);

    Theme theme_ = Theme::dark;
    std::string shape_text_;  // what is typed, which may not parse yet
    std::string shape_error_;
    std::string calibration_text_;
    int preset_ = -1;
};

}  // namespace pinscope::gui
