#include "app/gui/timeline_legend.h"

#include <cmath>
#include <string>

#include <imgui.h>

#include "app/gui/timeline_lane_spans.h"
#include "app/gui/ui_style.h"

namespace pinscope::gui {
namespace {

float swatch_width() {
    return ImGui::GetFontSize();
}

}  // namespace

LegendEntries all_kinds_legend() {
    LegendEntries all;
    // `tracing` (a thread held by a full trace ring), `startup` and `stopwatch` (a cold start, a naive
    // benchmark) are rare and explained by their tooltips: not fixtures of every legend. The legend of
    // what is in view names them when they are.
    for (int k = 0; k < kSpanKindCount; ++k)
        if (SpanKind(k) != SpanKind::tracing && SpanKind(k) != SpanKind::startup &&
            SpanKind(k) != SpanKind::stopwatch)
            all.push_back({std::string(kSpanKindNames[k]), SpanKind(k), false});
    all.push_back({"pageable", SpanKind::h2d, true});  // a copy from pageable memory
    return all;
}

float legend_spacing() {
    return std::round(ImGui::GetFontSize() * 0.6f);
}

float swatch_gap() {
    return std::round(ImGui::GetFontSize() * 0.25f);
}

std::vector<float> legend_entry_widths(const LegendEntries& entries) {
    std::vector<float> widths;
    for (const LegendEntry& e : entries)
        widths.push_back(swatch_width() + swatch_gap() + ImGui::CalcTextSize(e.name.c_str()).x);
    return widths;
}

void draw_legend(Theme theme, const LegendEntries& all) {
    const SpanPalette& p = palette(theme);
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const float box = ImGui::GetFontSize(), available = ImGui::GetContentRegionAvail().x;
    const std::vector<float> widths = legend_entry_widths(all);
    float x = 0;
    for (size_t i = 0; i < all.size(); ++i) {
        if (x > 0 && x + legend_spacing() + widths[i] > available) {
            ImGui::NewLine();  // wraps: an entry is never cut
            x = 0;
        } else if (x > 0) {
            ImGui::SameLine(0.f, legend_spacing());
        }
        const ImVec2 a = ImGui::GetCursorScreenPos(), b(a.x + swatch_width(), a.y + box);
        draw->AddRectFilled(a, b, to_imu32(p.of(all[i].colour)));
        if (all[i].hatched) {
            draw_hatch(draw, a, b, to_imu32(p.pageable_stripe), 5.f);
            draw->AddRect(a, b, to_imu32(p.pageable_stripe), 0.f, 0, 1.5f);
        }
        ImGui::Dummy(ImVec2(swatch_width(), box));
        ImGui::SameLine(0.f, swatch_gap());
        ImGui::TextUnformatted(all[i].name.c_str());
        x += (x > 0 ? legend_spacing() : 0) + widths[i];
    }
}

}  // namespace pinscope::gui
