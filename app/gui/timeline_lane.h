#pragma once
// The small interface every timeline row implements (Tracy's TimelineItem): preprocess() decides what
// to draw from the model (culling and folding, no ImGui), draw() emits the row's label and canvas into
// the frame's draw list and reports what the mouse is over. The timeline holds its rows through this
// interface only: a new kind of row (an imported trace's threads, a compare view) is one new class.
#include <optional>
#include <unordered_map>
#include <vector>

#include <imgui.h>

#include "app/gui/model/span_palette.h"
#include "app/gui/model/timeline_viewport.h"
#include "core/trace/trace_store.h"

namespace pinscope::gui {

class SpanRenderer;

// What the mouse is over: one span, or a fold of many.
struct HoveredSpan {
    LaneId lane = kNoLane;
    Span span;         // the span (for a fold: its first)
    size_t count = 1;  // > 1 for a fold
    TimeNs fold_start = 0, fold_end = 0;
    bool other = false;  // a span of the compared capture (B), on B's own clock
};

// What every row of one frame shares.
struct TimelineFrame {
    const TraceStore& store;
    PixelMapping mapping;
    Theme theme = Theme::dark;
    ImDrawList* draw = nullptr;
    float label_left = 0;   // screen x of the label column
    float canvas_left = 0;  // screen x where the mapping's x = 0
    float row_height = 0;
    ImVec2 mouse;
    bool mouse_over_canvas = false;
    const std::unordered_map<LaneId, double>* busy = nullptr;  // per lane, in a selected range
    std::optional<HoveredSpan> hovered;                        // set by draw() of the row under the mouse
    // Compare: the other capture (B), drawn under this one, and what its times need added to sit on
    // this one's axis.
    const TraceStore* other = nullptr;
    TimeNs other_shift = 0;
    // Draws span lanes on the GPU when set: lanes that no longer change (a capture), shaders compiled.
    SpanRenderer* gpu = nullptr;

    const TraceStore& store_of(bool of_other) const { return of_other && other ? *other : store; }
    // B's times to pixels: the same pixels as A's times `other_shift` later.
    PixelMapping mapping_of(bool of_other) const {
        if (!of_other) return mapping;
        return PixelMapping{{mapping.range.start - other_shift, mapping.range.end - other_shift},
                            mapping.width_px};
    }
};

class TimelineLane {
  public:
    virtual ~TimelineLane() = default;
    virtual float height(const TimelineFrame& frame) const = 0;
    virtual void preprocess(const TimelineFrame& frame) = 0;
    // Draws the row with its top at screen y `top`: its label in the label column, then its canvas.
    virtual void draw(TimelineFrame& frame, float top) = 0;

    // The trace lane the row shows, when it shows one (hover trails join those rows).
    virtual std::optional<LaneId> trace_lane() const { return std::nullopt; }
    // Whether that lane is the compared capture's (B).
    virtual bool shows_other() const { return false; }
    // Rows of data alternate their background; headers do not.
    virtual bool striped() const { return true; }
    // Boxes drawn in the last frame, for --frame-stats.
    virtual size_t drawn_items() const { return 0; }
    // Marks the kinds (categories) the last preprocess() found in view, and whether a pageable copy was.
    virtual void kinds_in_view(std::vector<bool>& /*kinds*/, bool& /*pageable*/) const {}
};

// A row's label, kept inside the label column however long.
void draw_lane_label(const TimelineFrame& frame, float top, ImU32 colour, const std::string& text);

}  // namespace pinscope::gui
