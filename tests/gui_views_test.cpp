// The app's views drawn into an ImGui frame without a window or a GPU: what they put on screen.
#include <doctest/doctest.h>

#include <algorithm>

#include <imgui.h>

#include "app/gui/controls_window.h"

using namespace pinscope;
using namespace pinscope::gui;

namespace {

// An ImGui context with a built font atlas and a display: enough to build frames headless.
struct HeadlessImGui {
    HeadlessImGui(float width, float height) {
        ImGui::CreateContext();
        ImGuiIO& io = ImGui::GetIO();
        io.DisplaySize = ImVec2(width, height);
        io.IniFilename = nullptr;
        unsigned char* pixels = nullptr;
        int w = 0, h = 0;
        io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
    }
    ~HeadlessImGui() { ImGui::DestroyContext(); }
};

}  // namespace

TEST_CASE("the Controls window draws a widget for every knob of the table") {
    HeadlessImGui imgui(600, 4000);
    AppState state(TraceStore{});  // no pipeline: the widgets are drawn, disabled
    ControlsWindow controls;
    for (int frame = 0; frame < 2; ++frame) {  // the first frame lays out, the second is as a user sees it
        ImGui::NewFrame();
        controls.draw(state, Theme::dark, ImVec2(0, 0), ImVec2(600, 4000));
        ImGui::Render();
    }
    const std::vector<std::string_view>& drawn = controls.drawn_knobs();
    for (const Knob& knob : knobs()) {
        CAPTURE(knob.key);
        CHECK(std::count(drawn.begin(), drawn.end(), knob.key) == 1);
    }
}
