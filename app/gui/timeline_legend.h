#pragma once
// The legend above the lanes: a swatch and a name for every category the view shows (pinscope's span
// kinds, an imported trace's categories), and the hatching of pageable copies when one is in view. It
// wraps onto as many lines as the window's width needs; the layout measures it the same way.
#include <string>
#include <vector>

#include "app/gui/model/span_palette.h"

namespace pinscope::gui {

struct LegendEntry {
    std::string name;
    SpanKind colour;  // whose colour the swatch takes
    bool hatched = false;
    bool operator==(const LegendEntry&) const = default;
};
using LegendEntries = std::vector<LegendEntry>;

// Every kind of pinscope's own and the pageable hatching: the legend before anything is in view.
LegendEntries all_kinds_legend();

// Each entry's width (swatch and name), as draw_legend lays them out.
std::vector<float> legend_entry_widths(const LegendEntries& entries = all_kinds_legend());
// The space between two entries on a line.
float legend_spacing();

// Draws the legend from the cursor, wrapping within the content region's width.
void draw_legend(Theme theme, const LegendEntries& entries);

}  // namespace pinscope::gui
