#pragma once
// Classroom-readable settings the user picks (text size, theme, font file); UiStyle applies them.
#include <string>

namespace pinscope::gui {

constexpr const char* kDefaultFontFile = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

struct UiSettings {
    static constexpr float kMinScale = 0.75f, kMaxScale = 3.0f;
    float font_scale = 1.0f;
    bool high_contrast = false;
    std::string font_file = kDefaultFontFile;  // fonts-dejavu-core's DejaVu Sans

    bool operator==(const UiSettings&) const = default;
};

}  // namespace pinscope::gui
