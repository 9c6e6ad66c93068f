#include "app/gui/timeline_lane_counter.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "app/gui/ui_style.h"
#include "core/units/units.h"

namespace pinscope::gui {
namespace {

constexpr float kColumnPx = 2.f;  // one column per 2 px: smooth enough, half the work

std::string value_text(CounterKind kind, double v) {
    return kind == CounterKind::pinned_bytes ? format_bytes(v) : fmt::format("{:.0f}", v);
}

}  // namespace

void CounterLane::preprocess(const TimelineFrame& frame) {
    const auto& series = frame.store.counters(kind_);
    const int columns = std::max(1, static_cast<int>(frame.mapping.width_px / kColumnPx));
    columns_ = counter_columns(series, frame.mapping, columns);
    peak_ = counter_peak(frame.store.samples_in(kind_, frame.mapping.range));
    current_ = 0;
    for (auto it = columns_.rbegin(); it != columns_.rend(); ++it)
        if (it->known) {
            current_ = it->level;
            break;
        }
}

std::string CounterLane::describe() const {
    return "edge: " + value_text(kind_, current_);
}

void CounterLane::draw(TimelineFrame& frame, float top) {
    draw_lane_label(frame, top + 1.f, ImGui::GetColorU32(ImGuiCol_Text),
                    std::string(counter_kind_name(kind_)));
    draw_lane_label(frame, top + 1.f + ImGui::GetFontSize(), ImGui::GetColorU32(ImGuiCol_TextDisabled),
                    describe());
    frame.draw->PushClipRect(
        ImVec2(frame.canvas_left, top),
        ImVec2(frame.canvas_left + static_cast<float>(frame.mapping.width_px), top + height(frame)), true);
    plot(frame, top);
    frame.draw->PopClipRect();
}

void CounterLane::plot(TimelineFrame& frame, float top) {
    // The scale's label has a band of its own above the plot, so no level is ever drawn through it.
    const float band = ImGui::GetFontSize();
    const float bottom = top + height(frame) - 1.f;
    const float h = bottom - (top + band) - 1.f;
    const Theme theme = frame.theme;
    const ImU32 bar =
        theme == Theme::high_contrast ? IM_COL32(255, 255, 0, 150) : IM_COL32(150, 160, 190, 90);
    const ImU32 line =
        theme == Theme::high_contrast ? IM_COL32(255, 255, 0, 255) : IM_COL32(200, 210, 235, 255);
    frame.draw->AddLine(ImVec2(frame.canvas_left, bottom),
                        ImVec2(frame.canvas_left + float(frame.mapping.width_px), bottom),
                        IM_COL32(128, 128, 128, 80));
    if (peak_ <= 0) return;
    // The plot's scale, top right: its full height is the highest level in view.
    const std::string scale = "top: " + value_text(kind_, peak_) + ", the most in view";
    const ImVec2 scale_size = ImGui::CalcTextSize(scale.c_str());
    const ImVec2 scale_at(frame.canvas_left + float(frame.mapping.width_px) - scale_size.x - 4.f, top);
    const float column_width = float(frame.mapping.width_px) / static_cast<float>(columns_.size());
    auto y_of = [&](double v) { return bottom - static_cast<float>(std::clamp(v / peak_, 0.0, 1.0)) * h; };
    // The level as one step polyline: one path per frame, not a line per column.
    std::vector<ImVec2> steps;
    steps.reserve(columns_.size() * 2);
    for (size_t c = 0; c < columns_.size(); ++c) {
        const CounterColumn& column = columns_[c];
        if (!column.known) continue;
        const float x0 = frame.canvas_left + column_width * static_cast<float>(c);
        frame.draw->AddRectFilled(ImVec2(x0, y_of(column.high)), ImVec2(x0 + column_width, bottom), bar);
        steps.emplace_back(x0, y_of(column.level));
        steps.emplace_back(x0 + column_width, y_of(column.level));
    }
    if (steps.size() >= 2)
        frame.draw->AddPolyline(steps.data(), static_cast<int>(steps.size()), line, 0, 1.5f);
    frame.draw->AddText(ImVec2(scale_at.x + 2.f, scale_at.y), ImGui::GetColorU32(ImGuiCol_TextDisabled),
                        scale.c_str());
    if (frame.mouse_over_canvas && frame.mouse.y >= top && frame.mouse.y < bottom) {
        const auto c = static_cast<size_t>(std::clamp((frame.mouse.x - frame.canvas_left) / column_width, 0.f,
                                                      static_cast<float>(columns_.size() - 1)));
        if (columns_[c].known) {
            ImGui::BeginTooltip();
            ImGui::Text("%s: %s", std::string(counter_kind_name(kind_)).c_str(),
                        value_text(kind_, columns_[c].level).c_str());
            ImGui::EndTooltip();
        }
    }
}

}  // namespace pinscope::gui
