#pragma once
// The layout's inputs as ImGui measures them, with the font and style in force: text sizes of the
// metric tiles and the legend entries, widget and line heights.
#include <imgui.h>

#include "app/gui/model/layout.h"
#include "app/gui/timeline_legend.h"

namespace pinscope::gui {

// `legend`: what the timeline's legend shows (the categories in view).
LayoutInput measure_layout(ImVec2 display, int status_lines, bool controls_collapsed,
                           const LegendEntries& legend = all_kinds_legend());

}  // namespace pinscope::gui
