#include "app/gui/ui_style.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>
#include <imgui_freetype.h>

#include "core/fonts/font_check.h"
#include "core/units/units.h"

namespace pinscope::gui {
namespace {

constexpr float kBaseFontPx = 16.f;     // DejaVu Sans at 16 px reads well at 1080p
constexpr float kBuiltinFontPx = 13.f;  // ImGui's ProggyClean is drawn for 13 px

void high_contrast_colours(ImGuiStyle& style) {
    ImGui::StyleColorsDark(&style);
    ImVec4* c = style.Colors;
    const ImVec4 black(0, 0, 0, 1), white(1, 1, 1, 1), yellow(1, 1, 0, 1), grey(0.25f, 0.25f, 0.25f, 1);
    c[ImGuiCol_Text] = white;
    c[ImGuiCol_TextDisabled] = ImVec4(0.7f, 0.7f, 0.7f, 1);
    c[ImGuiCol_WindowBg] = c[ImGuiCol_ChildBg] = c[ImGuiCol_PopupBg] = c[ImGuiCol_MenuBarBg] = black;
    c[ImGuiCol_Border] = white;
    c[ImGuiCol_FrameBg] = ImVec4(0.12f, 0.12f, 0.12f, 1);
    c[ImGuiCol_FrameBgHovered] = c[ImGuiCol_FrameBgActive] = grey;
    c[ImGuiCol_TitleBg] = c[ImGuiCol_TitleBgActive] = c[ImGuiCol_TitleBgCollapsed] = black;
    c[ImGuiCol_CheckMark] = c[ImGuiCol_SliderGrab] = c[ImGuiCol_SliderGrabActive] = yellow;
    c[ImGuiCol_Button] = ImVec4(0.15f, 0.15f, 0.15f, 1);
    c[ImGuiCol_ButtonHovered] = c[ImGuiCol_ButtonActive] = grey;
    c[ImGuiCol_Header] = c[ImGuiCol_HeaderHovered] = c[ImGuiCol_HeaderActive] = grey;
    c[ImGuiCol_PlotLines] = c[ImGuiCol_PlotHistogram] = yellow;
    c[ImGuiCol_Separator] = white;
    style.FrameBorderSize = 1.f;
    style.WindowBorderSize = 1.f;
}

}  // namespace

ImVec4 error_colour(Theme theme) {
    return theme == Theme::high_contrast ? ImVec4(1, 0.3f, 0.3f, 1) : ImVec4(1, 0.42f, 0.38f, 1);
}
ImVec4 warning_colour(Theme theme) {
    return theme == Theme::high_contrast ? ImVec4(1, 1, 0, 1) : ImVec4(0.95f, 0.78f, 0.3f, 1);
}
ImVec4 muted_colour(Theme theme) {
    return theme == Theme::high_contrast ? ImVec4(0.85f, 0.85f, 0.85f, 1) : ImVec4(0.62f, 0.63f, 0.68f, 1);
}

// The atlas is built by FreeType (imgui_freetype, in Debian's libimgui.a), not stb_truetype, which is not
// made for hostile files; and the font file is first read and checked by FreeType (core/fonts): a file it
// refuses never reaches ImGui, which asserts where it should report.
void UiStyle::load_font(const UiSettings& settings) {
    ImGuiIO& io = ImGui::GetIO();
    io.Fonts->Clear();
    io.Fonts->FontBuilderIO = ImGuiFreeType::GetBuilderForFreeType();
    std::string problem = settings.font_file.empty() ? "none was given" : "";
    if (problem.empty()) problem = font_file_problem(settings.font_file, &font_bytes_);
    if (problem.empty()) {
        ImFontConfig config;
        config.OversampleH = 2;
        config.FontDataOwnedByAtlas = false;  // font_bytes_ keeps them: exactly the bytes that were checked
        if (io.Fonts->AddFontFromMemoryTTF(font_bytes_.data(), static_cast<int>(font_bytes_.size()),
                                           kBaseFontPx * settings.font_scale, &config) &&
            io.Fonts->Build()) {
            font_note_ = std::filesystem::path(settings.font_file).stem().string();
            fell_back_ = false;
            return;
        }
        problem = "the font atlas could not be built from it";
        io.Fonts->Clear();
    }
    font_bytes_.clear();
    ImFontConfig config;
    config.SizePixels = kBuiltinFontPx * settings.font_scale;
    io.Fonts->AddFontDefault(&config);
    fell_back_ = true;
    const bool default_font = settings.font_file == kDefaultFontFile;
    font_note_ = settings.font_file.empty()
                     ? "ImGui's built-in font"
                     : fmt::format("ImGui's built-in font ({}: {}{})", printable(settings.font_file), problem,
                                   default_font ? "; install fonts-dejavu-core for DejaVu Sans" : "");
}

void UiStyle::set_colours(const UiSettings& settings) {
    ImGuiStyle style;
    if (settings.high_contrast) {
        high_contrast_colours(style);
    } else {
        ImGui::StyleColorsDark(&style);
        style.Colors[ImGuiCol_WindowBg] = to_vec4(kDarkPalette.background);
        style.Colors[ImGuiCol_ChildBg] = to_vec4(kDarkPalette.background);
    }
    style.WindowRounding = 0.f;
    style.FrameRounding = 2.f;
    style.ScaleAllSizes(settings.font_scale);
    ImGui::GetStyle() = style;
}

bool UiStyle::apply(const UiSettings& requested) {
    UiSettings settings = requested;
    settings.font_scale = std::clamp(settings.font_scale, UiSettings::kMinScale, UiSettings::kMaxScale);
    if (!first_ && settings == applied_) return false;
    const bool font_changed =
        first_ || settings.font_scale != applied_.font_scale || settings.font_file != applied_.font_file;
    if (font_changed) load_font(settings);
    set_colours(settings);
    applied_ = settings;
    first_ = false;
    return font_changed;
}

}  // namespace pinscope::gui
