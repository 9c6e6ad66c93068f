#include "app/gui/timeline_flows.h"

#include <algorithm>

#include "app/gui/ui_style.h"

namespace pinscope::gui {

void draw_batch_trail(ImDrawList* draw, const std::vector<TrailStop>& trail,
                      const std::unordered_map<LaneId, LaneRow>& rows, const PixelMapping& mapping,
                      float canvas_left, Theme theme) {
    const ImU32 colour = to_imu32(palette(theme).highlight);
    const ImU32 shadow = IM_COL32(0, 0, 0, 160);
    struct Box {
        ImVec2 a, b;
    };
    std::vector<Box> boxes;
    for (const TrailStop& stop : trail) {
        auto row = rows.find(stop.lane);
        if (row == rows.end()) continue;  // a lane scrolled out of the list
        const float x0 = canvas_left + mapping.clamp_x(mapping.x_of(stop.span.start));
        const float x1 = std::max(canvas_left + mapping.clamp_x(mapping.x_of(stop.span.end)), x0 + 1.f);
        boxes.push_back({ImVec2(x0, row->second.top), ImVec2(x1, row->second.top + row->second.height)});
    }
    for (size_t i = 1; i < boxes.size(); ++i) {
        const Box& from = boxes[i - 1];
        const Box& to = boxes[i];
        const ImVec2 p0(from.b.x, (from.a.y + from.b.y) * 0.5f);
        const ImVec2 p3(to.a.x, (to.a.y + to.b.y) * 0.5f);
        const float bend = std::max(12.f, std::abs(p3.x - p0.x) * 0.4f);
        draw->AddBezierCubic(p0, ImVec2(p0.x + bend, p0.y), ImVec2(p3.x - bend, p3.y), p3, shadow, 3.5f);
        draw->AddBezierCubic(p0, ImVec2(p0.x + bend, p0.y), ImVec2(p3.x - bend, p3.y), p3, colour, 1.5f);
        draw->AddCircleFilled(p3, 3.f, colour);
    }
    for (const Box& box : boxes) {
        draw->AddRect(box.a, box.b, shadow, 0.f, 0, 4.f);
        draw->AddRect(box.a, box.b, colour, 0.f, 0, 2.f);
    }
}

}  // namespace pinscope::gui
