#pragma once
// The legend above the lanes: a swatch and a name for every span kind, and the hatching of pageable
// copies. It wraps onto as many lines as the window's width needs; the layout measures it the same way.
#include <vector>

#include "app/gui/model/span_palette.h"

namespace pinscope::gui {

// Each entry's width (swatch and name), as draw_legend lays them out.
std::vector<float> legend_entry_widths();
// The space between two entries on a line.
float legend_spacing();

// Draws the legend from the cursor, wrapping within the content region's width.
void draw_legend(Theme theme);

}  // namespace pinscope::gui
