#pragma once
// The small interface every timeline row implements (Tracy's TimelineItem): preprocess() decides
// what to draw from the model (culling and folding, no ImGui), draw() emits it into the frame's
// draw list and reports what the mouse is over. One file per lane type implements it.
#include <optional>

#include <imgui.h>

#include "app/gui/model/span_palette.h"
#include "app/gui/model/timeline_viewport.h"
#include "core/trace/trace_store.h"

namespace pinscope::gui {

// What the mouse is over: one span, or a fold of many.
struct HoveredSpan {
    LaneId lane = kNoLane;
    Span span;         // the span (for a fold: its first)
    size_t count = 1;  // > 1 for a fold
    TimeNs fold_start = 0, fold_end = 0;
};

struct TimelineFrame {
    const TraceStore& store;
    PixelMapping mapping;
    Theme theme = Theme::dark;
    ImDrawList* draw = nullptr;
    float canvas_left = 0;  // screen x where the mapping's x = 0
    float row_height = 0;
    ImVec2 mouse;
    bool mouse_over_canvas = false;
    std::optional<HoveredSpan> hovered;  // set by draw() of the lane under the mouse
};

class TimelineLane {
  public:
    virtual ~TimelineLane() = default;
    virtual float height(const TimelineFrame& frame) const = 0;
    virtual void preprocess(const TimelineFrame& frame) = 0;
    // Draws the lane with its top at screen y `top`.
    virtual void draw(TimelineFrame& frame, float top) = 0;
};

}  // namespace pinscope::gui
