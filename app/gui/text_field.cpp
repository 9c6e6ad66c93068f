#include "app/gui/text_field.h"

#include <algorithm>
#include <array>
#include <cstring>

namespace pinscope::gui {

bool text_field(const char* label, std::string& text, ImGuiInputTextFlags flags, const char* hint) {
    std::array<char, 1024> buffer{};
    std::memcpy(buffer.data(), text.data(), std::min(text.size(), buffer.size() - 1));
    const bool changed = hint ? ImGui::InputTextWithHint(label, hint, buffer.data(), buffer.size(), flags)
                              : ImGui::InputText(label, buffer.data(), buffer.size(), flags);
    if (changed) text = buffer.data();
    return changed;
}

void wrapped_message(const ImVec4& colour, const std::string& message) {
    ImGui::PushStyleColor(ImGuiCol_Text, colour);
    ImGui::PushTextWrapPos(0.f);
    ImGui::TextUnformatted(message.c_str());
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
}

void help_marker(const char* text) {
    ImGui::SameLine();
    ImGui::TextDisabled("(?)");
    if (ImGui::IsItemHovered()) {
        ImGui::BeginTooltip();
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30.f);
        ImGui::TextUnformatted(text);
        ImGui::PopTextWrapPos();
        ImGui::EndTooltip();
    }
}

}  // namespace pinscope::gui
