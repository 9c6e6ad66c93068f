#include "app/gui/timeline_lane.h"

namespace pinscope::gui {

void draw_lane_label(const TimelineFrame& frame, float top, ImU32 colour, const std::string& text) {
    frame.draw->PushClipRect(ImVec2(frame.label_left, top),
                             ImVec2(frame.canvas_left - 4.f, top + frame.row_height * 2.f), true);
    frame.draw->AddText(ImVec2(frame.label_left + ImGui::GetFontSize() * 0.5f, top), colour, text.c_str());
    frame.draw->PopClipRect();
}

}  // namespace pinscope::gui
