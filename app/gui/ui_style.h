#pragma once
// Classroom-readable settings: the font (DejaVu Sans from fonts-dejavu-core when present, else
// ImGui's built-in font), its scale (Ctrl +/-), and the dark or high-contrast theme. Fonts are
// rebuilt at the new pixel size rather than stretched, so large text stays sharp on a projector.
#include <string>

#include <imgui.h>

#include "app/gui/model/span_palette.h"
#include "app/gui/model/ui_settings.h"

namespace pinscope::gui {

class UiStyle {
  public:
    // Applies `settings` between frames. True when the font atlas was rebuilt and the renderer must
    // upload it again (AppWindow::reload_font_texture).
    bool apply(const UiSettings& settings);

    const UiSettings& settings() const { return applied_; }
    Theme theme() const { return applied_.high_contrast ? Theme::high_contrast : Theme::dark; }
    // Which font is in use, and why when it is not the one asked for.
    const std::string& font_note() const { return font_note_; }
    bool font_fell_back() const { return fell_back_; }

  private:
    void load_font(const UiSettings& settings);
    void set_colours(const UiSettings& settings);

    UiSettings applied_;
    bool first_ = true;
    std::string font_bytes_;  // the font file, checked, which the atlas reads from (it does not own them)
    std::string font_note_;
    bool fell_back_ = false;
};

inline ImU32 to_imu32(Rgb c, int alpha = 255) {
    return IM_COL32(c.r, c.g, c.b, alpha);
}
inline ImVec4 to_vec4(Rgb c, float alpha = 1.f) {
    return ImVec4(c.r / 255.f, c.g / 255.f, c.b / 255.f, alpha);
}

// Colours of messages, per theme.
ImVec4 error_colour(Theme theme);
ImVec4 warning_colour(Theme theme);
ImVec4 muted_colour(Theme theme);

}  // namespace pinscope::gui
