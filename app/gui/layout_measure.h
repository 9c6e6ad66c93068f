#pragma once
// The layout's inputs as ImGui measures them, with the font and style in force: text sizes of the
// metric tiles and the legend entries, widget and line heights.
#include <imgui.h>

#include "app/gui/model/layout.h"

namespace pinscope::gui {

LayoutInput measure_layout(ImVec2 display, int status_lines, bool controls_collapsed);

}  // namespace pinscope::gui
