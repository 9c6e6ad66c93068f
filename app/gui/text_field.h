#pragma once
// ImGui 1.86 from Debian ships without imgui_stdlib: text inputs for std::string go through a buffer.
#include <string>

#include <imgui.h>

namespace pinscope::gui {

// Edits `text` in place; true on every change (as ImGui::InputText).
bool text_field(const char* label, std::string& text, ImGuiInputTextFlags flags = 0,
                const char* hint = nullptr);

// Shows `message` wrapped in `colour`, for errors and warnings under a widget.
void wrapped_message(const ImVec4& colour, const std::string& message);

// A "(?)" that explains a knob when hovered.
void help_marker(const char* text);

}  // namespace pinscope::gui
