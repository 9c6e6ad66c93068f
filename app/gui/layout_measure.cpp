#include "app/gui/layout_measure.h"

#include <algorithm>
#include <cmath>

#include "app/gui/model/metric_tiles.h"

namespace pinscope::gui {

LayoutInput measure_layout(ImVec2 display, int status_lines, bool controls_collapsed,
                           const LegendEntries& legend) {
    const ImGuiStyle& style = ImGui::GetStyle();
    LayoutInput in;
    in.width = display.x;
    in.height = display.y;
    in.font = ImGui::GetFontSize();
    in.frame_height = ImGui::GetFrameHeight();
    in.line_height = ImGui::GetTextLineHeightWithSpacing();
    in.padding = std::round(in.font * 0.25f);  // tight: at a projector's text size, height is for lanes
    in.spacing = style.ItemSpacing.x;
    in.row_spacing = style.ItemSpacing.y;
    in.status_lines = status_lines;
    in.controls_collapsed = controls_collapsed;
    for (const MetricTile& tile : metric_tiles())
        in.tile_widths.push_back(
            std::max(ImGui::CalcTextSize(tile.title).x, ImGui::CalcTextSize(tile.widest).x) +
            style.ItemSpacing.x);
    in.legend_widths = legend_entry_widths(legend);
    in.legend_spacing = legend_spacing();
    return in;
}

}  // namespace pinscope::gui
