#pragma once
// The Controls panel: a widget for every row of the knob table (core/config/knobs.h), named by its config
// key, with the knob's help as a tooltip, in the table's groups; presets, a reset and the preview
// (preview_panel.h) on top. Each edit goes through ConfigEditor: a valid config reaches the running
// pipeline at the next frame (unless the preview holds it); an invalid one stays a draft with
// validate()'s message under the knob it names.
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <imgui.h>

#include "app/gui/model/app_state.h"
#include "app/gui/model/layout.h"
#include "app/gui/model/span_palette.h"
#include "core/config/knobs.h"
#include "core/config/presets.h"

namespace pinscope::gui {

class ControlsWindow {
  public:
    // The panel in `rect`, or the strip it folds to while `collapsed`; its buttons change `collapsed`.
    void draw(AppState& state, Theme theme, const Rect& rect, bool& collapsed);
    // Shows `preset` as the one chosen (it was loaded from the command line).
    void select_preset(const Preset* preset);
    // The preset the user picked since the last call, once: the app shows it at its zoom.
    const Preset* take_chosen_preset();

    // Whether "Replay in the lab" was pressed for an imported trace since the last call, once.
    bool take_replay() { return std::exchange(replay_, false); }

    // The keys of the knobs whose widget was on screen in the last frame, in order.
    const std::vector<std::string_view>& drawn_knobs() const { return drawn_; }

  private:
    bool replay_ = false;
    void strip(bool& collapsed);
    void presets(ConfigEditor& editor);
    void group(ConfigEditor& editor, KnobGroup group);
    void knob_widget(ConfigEditor& editor, const Knob& knob);
    bool slider(const Knob& knob, nlohmann::json& value);
    bool text_knob(const Knob& knob, nlohmann::json& value);
    void issues(const ConfigEditor& editor, std::string_view option);

    Theme theme_ = Theme::dark;
    std::map<std::string_view, std::string> typed_;         // text being typed, which may not parse yet
    std::map<std::string_view, std::string> parse_errors_;  // why the typed text does not parse
    std::vector<std::string_view> drawn_;
    PredictionPreview* preview_ = nullptr;  // this frame's, while the preview is on
    int preset_ = -1;
    const Preset* chosen_ = nullptr;
};

}  // namespace pinscope::gui
