#include "app/gui/timeline_lane_header.h"

#include <cmath>

#include <fmt/format.h>

#include "app/gui/model/layout.h"

namespace pinscope::gui {

float HeaderLane::height(const TimelineFrame&) const {
    return group_header_height(ImGui::GetFontSize());
}

void HeaderLane::draw(TimelineFrame& frame, float top) {
    const float bottom = top + height(frame) - 1.f;
    const float right = frame.canvas_left + static_cast<float>(frame.mapping.width_px);
    const ImU32 ink = ImGui::GetColorU32(ImGuiCol_Text);
    float text_left = frame.label_left;
    std::string text = title_;
    if (collapsible_) {
        // A triangle the height of a capital letter: pointing right when folded, down when open.
        const float size = std::round(ImGui::GetFontSize() * 0.45f);
        const ImVec2 c(frame.label_left + size * 0.6f, top + 2.f + ImGui::GetFontSize() * 0.5f);
        if (collapsed_)
            frame.draw->AddTriangleFilled(ImVec2(c.x - size * 0.4f, c.y - size * 0.5f),
                                          ImVec2(c.x + size * 0.5f, c.y),
                                          ImVec2(c.x - size * 0.4f, c.y + size * 0.5f), ink);
        else
            frame.draw->AddTriangleFilled(ImVec2(c.x - size * 0.5f, c.y - size * 0.4f),
                                          ImVec2(c.x + size * 0.5f, c.y - size * 0.4f),
                                          ImVec2(c.x, c.y + size * 0.5f), ink);
        text_left += size * 1.6f;
        if (collapsed_) text += fmt::format("  ({} lane{} folded)", lanes_, lanes_ == 1 ? "" : "s");
        const bool over = ImGui::IsWindowHovered() && frame.mouse.x >= frame.label_left &&
                          frame.mouse.x < right && frame.mouse.y >= top && frame.mouse.y < bottom;
        if (over) {
            frame.draw->AddRectFilled(ImVec2(frame.label_left, top), ImVec2(right, bottom),
                                      ImGui::GetColorU32(ImGuiCol_HeaderHovered, 0.35f));
            clicked_ = clicked_ || ImGui::IsMouseClicked(ImGuiMouseButton_Left);
        }
    }
    frame.draw->AddText(ImVec2(text_left, top + 2.f), ink, text.c_str());
    frame.draw->AddLine(ImVec2(frame.label_left, bottom), ImVec2(right, bottom),
                        ImGui::GetColorU32(ImGuiCol_TextDisabled));
}

}  // namespace pinscope::gui
