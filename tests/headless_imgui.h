#pragma once
// An ImGui context with a display and no window or GPU: enough to build frames headless, for tests of
// what the app's views put on screen. Build the font atlas (after the style's fonts) before NewFrame.
#include <imgui.h>

namespace pinscope::testing {

struct HeadlessImGui {
    HeadlessImGui(float width, float height) {
        ImGui::CreateContext();
        ImGuiIO& io = ImGui::GetIO();
        io.DisplaySize = ImVec2(width, height);
        io.IniFilename = nullptr;
        io.DeltaTime = 1.f / 60;
        unsigned char* pixels = nullptr;
        int w = 0, h = 0;
        io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
    }
    ~HeadlessImGui() { ImGui::DestroyContext(); }
    HeadlessImGui(const HeadlessImGui&) = delete;
    HeadlessImGui& operator=(const HeadlessImGui&) = delete;
};

}  // namespace pinscope::testing
