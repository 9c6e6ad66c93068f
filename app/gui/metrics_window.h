#pragma once
// The metric tiles: the numbers that answer "is the GPU fed?", averages over the last second (levels:
// now), each with a small plot of its last minute when the layout can spare the room. Tiles wrap into
// as many rows as their titles need.
#include <imgui.h>

#include "app/gui/model/app_state.h"
#include "app/gui/model/layout.h"
#include "app/gui/model/span_palette.h"

namespace pinscope::gui {

void draw_metrics_window(const AppState& state, Theme theme, const Layout& layout);

}  // namespace pinscope::gui
