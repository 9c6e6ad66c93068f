#pragma once
// The live timeline (Tracy is the model): a group per process (pinscope's own: train loop, workers, pin
// thread) and per device (its H2D, kernel and D2H lanes per stream), each under a header that folds it
// away when clicked, then counter plots. Nested spans stack by depth; the legend names the categories
// the view shows. Follow live or pause
// (space), wheel zoom about the cursor, drag to pan, right-drag (or Shift+drag) to select a range,
// zoom to it (Z), fit everything (F). Hovering a span outlines its batch on every lane and joins the
// stages with flow curves; a selected range shows each lane's busy fraction and the overlap in it.
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>
#include <vector>

#include <imgui.h>

#include "app/gui/model/app_state.h"
#include "app/gui/model/layout.h"
#include "app/gui/model/range_summary.h"
#include "app/gui/model/timeline_rows.h"
#include "app/gui/model/timeline_viewport.h"
#include "app/gui/span_renderer.h"
#include "app/gui/timeline_lane.h"
#include "app/gui/timeline_lane_counter.h"
#include "app/gui/timeline_lane_header.h"
#include "app/gui/timeline_lane_spans.h"
#include "app/gui/timeline_legend.h"

namespace pinscope::gui {

class TimelineWindow {
  public:
    TimelineWindow();

    void draw(AppState& state, Theme theme, const Rect& rect, float padding);
    // Space, F, Z, Esc: answered wherever the mouse is, unless a text field has the keyboard.
    void shortcuts(const AppState& state);
    // Follow or pause, fit, zoom to and clear the selection, and the view's length: drawn in the main
    // menu bar, so the timeline's own window spends its height on lanes.
    void toolbar(const AppState& state, Theme theme);

    TimelineViewport& viewport() { return viewport_; }
    void fit(const TraceStore& store);
    // A finished trace (a capture) then opens showing `length` of its middle rather than all of it.
    void set_opening_length(TimeNs length) { opening_length_ = length; }
    // For a new trace (a capture opened, a run started): it is fitted (or followed) afresh.
    void reset();
    // Spans drawn (or folded) in the last frame, over every lane: for --frame-stats.
    size_t drawn_items() const { return drawn_items_; }
    // Span lanes of a trace that no longer changes are drawn by `renderer` when it is available.
    void set_span_renderer(SpanRenderer* renderer) { renderer_ = renderer; }
    // What the legend shows: the categories drawn in the last frame (every built-in kind before any).
    const LegendEntries& legend() const { return legend_; }

  private:
    void summary_overlay(const TimelineFrame& frame, float top);
    void ruler(const PixelMapping& mapping, TimeNs origin, Theme theme, float label_width);
    void lanes(AppState& state, Theme theme, float label_width);
    std::vector<TimelineLane*> arrange(const AppState& state);
    void overlays(const TimelineFrame& frame, const std::vector<TimelineLane*>& rows,
                  const std::vector<float>& tops, float top, float bottom);
    void interact(const PixelMapping& mapping, ImVec2 canvas_min, ImVec2 canvas_max);
    void tooltip(const HoveredSpan& hovered, const TraceStore& store, double slow_motion);
    void refresh_summary(const AppState& state);
    SpanLane& span_lane(LaneId lane, bool other = false);
    HeaderLane& group_header(const TimelineRow& row);
    void update_legend(const TraceStore& store, const std::vector<TimelineLane*>& rows);

    TimelineViewport viewport_;
    // The rows, kept from frame to frame (they hold their draw buffers); arrange() orders them.
    std::unordered_map<LaneId, std::unique_ptr<SpanLane>> span_lanes_;
    std::unordered_map<LaneId, std::unique_ptr<SpanLane>> other_span_lanes_;  // the compared capture's
    std::vector<std::unique_ptr<CounterLane>> counter_lanes_;
    std::map<GroupKey, std::unique_ptr<HeaderLane>> group_headers_;
    std::set<GroupKey> collapsed_;
    HeaderLane counters_header_, a_header_, b_header_;
    LegendEntries legend_ = all_kinds_legend();
    enum class Drag { none, pan, select } drag_ = Drag::none;
    TimeNs select_anchor_ = 0;
    std::optional<RangeSummary> summary_;
    TimeNs summary_refreshed_ = 0;
    bool fitted_ = false;
    std::optional<TimeNs> opening_length_;
    bool live_ = true;  // what the last frame drew: a live run, or a finished trace
    size_t drawn_items_ = 0;
    SpanRenderer* renderer_ = nullptr;
};

}  // namespace pinscope::gui
