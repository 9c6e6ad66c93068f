#include "app/gui/timeline_lane_header.h"

#include "app/gui/model/layout.h"

#include <cmath>

namespace pinscope::gui {

float HeaderLane::height(const TimelineFrame&) const {
    return group_header_height(ImGui::GetFontSize());
}

void HeaderLane::draw(TimelineFrame& frame, float top) {
    const float bottom = top + height(frame) - 1.f;
    frame.draw->AddText(ImVec2(frame.label_left, top + 2.f), ImGui::GetColorU32(ImGuiCol_Text),
                        title_.c_str());
    frame.draw->AddLine(ImVec2(frame.label_left, bottom),
                        ImVec2(frame.canvas_left + static_cast<float>(frame.mapping.width_px), bottom),
                        ImGui::GetColorU32(ImGuiCol_TextDisabled));
}

}  // namespace pinscope::gui
