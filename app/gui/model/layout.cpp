#include "app/gui/model/layout.h"

#include <algorithm>
#include <cmath>

namespace pinscope::gui {
namespace {

// The timeline above and between its lanes: the legend and the ruler, and the headers of the host's and
// the device's groups. (Its buttons are in the menu bar; a selection's summary floats over the lanes.)
float timeline_chrome(const LayoutInput& in, int legend_lines) {
    const float legend = static_cast<float>(legend_lines) * in.line_height;
    const float ruler = in.font + 6;
    return 2 * in.padding + legend + ruler + 2 * group_header_height(in.font);
}

float tile_height(const LayoutInput& in, bool plot) {
    const float text = 2 * in.line_height;  // title, value
    return text + (plot ? std::max(2 * in.font, 1.5f * in.line_height) : 0);
}

// Tiles left to right at their own widths, a new row when the next does not fit; then each row's tiles
// widen in proportion to fill it.
std::vector<TilePlace> place_tiles(const std::vector<float>& widths, float available, float spacing,
                                   int& rows) {
    std::vector<TilePlace> places(widths.size());
    rows = widths.empty() ? 0 : 1;
    float x = 0;
    for (size_t i = 0; i < widths.size(); ++i) {
        if (x > 0 && x + widths[i] > available) {
            ++rows;
            x = 0;
        }
        places[i] = {rows - 1, x, widths[i]};
        x += widths[i] + spacing;
    }
    for (int row = 0; row < rows; ++row) {
        float content = 0;
        int count = 0;
        for (const TilePlace& p : places) {
            if (p.row != row) continue;
            content += p.w;
            ++count;
        }
        const float scale = content > 0 ? (available - spacing * static_cast<float>(count - 1)) / content : 1;
        float x = 0;
        for (TilePlace& p : places) {
            if (p.row != row) continue;
            p.x = x;
            p.w *= scale;
            x += p.w + spacing;
        }
    }
    return places;
}

}  // namespace

float lane_height(float font) {
    return std::round(font * 1.35f);
}

float group_header_height(float font) {
    return std::round(font * 1.15f);
}

int wrapped_lines(const std::vector<float>& widths, float available, float spacing) {
    int lines = 1;
    float x = 0;
    for (float w : widths) {
        if (x > 0 && x + spacing + w > available) {
            ++lines;
            x = 0;
        }
        x += (x > 0 ? spacing : 0) + w;
    }
    return lines;
}

Layout lay_out(const LayoutInput& in) {
    Layout l;
    l.padding = in.padding;
    const float top = in.frame_height;  // the menu bar
    const float status_height = static_cast<float>(in.status_lines) * in.line_height + 2 * in.padding;
    const float body = in.height - top - status_height;
    const float controls_width =
        in.controls_collapsed ? std::round(in.font * 2.2f)
                              : std::clamp(in.font * 25.f, std::min(280.f, in.width * 0.4f), in.width * 0.4f);
    l.controls = {0, top, controls_width, body};
    l.status = {0, top + body, in.width, status_height};
    const float right = in.width - controls_width, inner = right - 2 * in.padding;

    l.tiles = place_tiles(in.tile_widths, inner, in.spacing, l.tile_rows);
    l.legend_lines = wrapped_lines(in.legend_widths, inner, in.legend_spacing);
    l.lane_height = lane_height(in.font);

    // Sparklines only when the lanes can spare the room: lanes are the point of the app.
    for (bool plots : {true, false}) {
        l.tile_plots = plots;
        l.tile_height = tile_height(in, plots);
        const float metrics_height = static_cast<float>(l.tile_rows) * (l.tile_height + in.row_spacing) -
                                     in.row_spacing + 2 * in.padding;
        l.metrics = {controls_width, top, right, metrics_height};
        l.timeline = {controls_width, top + metrics_height, right, body - metrics_height};
        l.lanes_top = timeline_chrome(in, l.legend_lines);
        l.lanes_visible = std::max(0, static_cast<int>((l.timeline.h - l.lanes_top) / l.lane_height));
        if (l.lanes_visible >= kLanesBeforePlots) break;
    }
    return l;
}

}  // namespace pinscope::gui
