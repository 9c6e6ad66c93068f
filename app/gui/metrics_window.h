#pragma once
// The Metrics strip: the numbers that answer "is the GPU fed?", each with a small plot of its last
// minute: samples/s, H2D GB/s against the link's peak, GPU busy, copy/compute overlap, stall,
// outstanding batches, reorder-buffer depth, pinned memory in use.
#include <imgui.h>

#include "app/gui/model/app_state.h"
#include "app/gui/model/span_palette.h"

namespace pinscope::gui {

void draw_metrics_window(const AppState& state, Theme theme, ImVec2 pos, ImVec2 size);

}  // namespace pinscope::gui
