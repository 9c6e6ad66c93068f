#pragma once
// Where the app's windows go, for any window size and text size: the Controls panel (or, collapsed,
// a strip), the metric tiles (as many rows as their titles need: tiles wrap, they never clip), the
// timeline (its toolbar, legend lines, ruler and as many lanes as fit) and the status bar. The views
// draw in these rectangles; a test checks the layout at projector settings (1280x720 at text size 2,
// 1600x900 at 1.5). Text widths are measured by the caller, so the model needs no ImGui.
#include <vector>

namespace pinscope::gui {

struct LayoutInput {
    float width = 1600, height = 900;  // the window's inside
    float font = 16;                   // the font's pixel size
    float frame_height = 22;           // a widget's height: the font plus frame padding (menu bar, buttons)
    float line_height = 20;            // a line of text with spacing
    float padding = 4;                 // the inner padding of the metrics, timeline and status windows
    float spacing = 8;                 // between two tiles side by side
    float row_spacing = 4;             // between two rows of tiles
    int status_lines = 1;
    bool controls_collapsed = false;
    std::vector<float> tile_widths;    // the widest of each metric tile's title and value, measured
    std::vector<float> legend_widths;  // each legend entry (swatch and name), measured
    float legend_spacing = 16;         // between legend entries
};

struct Rect {
    float x = 0, y = 0, w = 0, h = 0;
};

// A metric tile's place: its row, and its left edge and width inside the metrics window.
struct TilePlace {
    int row = 0;
    float x = 0, w = 0;
};

struct Layout {
    Rect controls;  // the panel, or the strip it collapses to
    Rect metrics, timeline, status;
    std::vector<TilePlace> tiles;  // as many rows as the titles need; each row filled edge to edge
    int tile_rows = 1;
    float tile_height = 0;
    bool tile_plots = true;  // sparklines under the tiles, when the lanes can spare the room
    int legend_lines = 1;
    float padding = 4;  // the windows' inner padding, as the input asked
    float lane_height = 0;
    float lanes_top = 0;  // inside the timeline: where the lanes start, from its top
    int lanes_visible = 0;
};

// Lanes a timeline should show at least before the metric tiles get their sparklines.
constexpr int kLanesBeforePlots = 8;

Layout lay_out(const LayoutInput& in);

// The height of a lane (a span or counter row's is twice this) and of a group's header, for a font size:
// the timeline draws them so.
float lane_height(float font);
float group_header_height(float font);

// How many lines `widths` take when laid out left to right in `available`, `spacing` apart.
int wrapped_lines(const std::vector<float>& widths, float available, float spacing);

}  // namespace pinscope::gui
