#pragma once
// The hovered batch's way through the pipeline: its spans outlined on every lane and consecutive
// stages (fetch -> pin -> wait -> H2D -> kernel -> D2H) joined by flow curves, as Perfetto draws flows.
#include <unordered_map>
#include <vector>

#include <imgui.h>

#include "app/gui/model/batch_trail.h"
#include "app/gui/model/span_palette.h"
#include "app/gui/model/timeline_viewport.h"

namespace pinscope::gui {

struct LaneRow {
    float top = 0, height = 0;  // screen y
};

void draw_batch_trail(ImDrawList* draw, const std::vector<TrailStop>& trail,
                      const std::unordered_map<LaneId, LaneRow>& rows, const PixelMapping& mapping,
                      float canvas_left, Theme theme);

}  // namespace pinscope::gui
