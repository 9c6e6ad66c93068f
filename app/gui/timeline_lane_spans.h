#pragma once
// A lane of spans: a host thread (train loop, worker, pin thread) or a device engine on one stream
// (H2D, kernel, D2H). One colour per span kind; copies from pageable memory are hatched and outlined
// in red; folds of spans too narrow to draw show how many they hold.
#include <vector>

#include "app/gui/model/span_folding.h"
#include "app/gui/timeline_lane.h"

namespace pinscope::gui {

class SpanLane final : public TimelineLane {
  public:
    // `other`: a lane of the compared capture (B) rather than of the trace shown.
    explicit SpanLane(LaneId lane, bool other = false) : lane_(lane), other_(other) {}

    float height(const TimelineFrame& frame) const override { return frame.row_height; }
    void preprocess(const TimelineFrame& frame) override;
    void draw(TimelineFrame& frame, float top) override;
    std::optional<LaneId> trace_lane() const override { return lane_; }
    bool shows_other() const override { return other_; }
    size_t drawn_items() const override { return items_.size(); }

  private:
    void label(const TimelineFrame& frame, float top) const;
    void boxes(TimelineFrame& frame, float top);

    LaneId lane_;
    bool other_;
    PixelMapping mapping_;         // this frame's, for the lane's own clock
    std::span<const Span> spans_;  // the lane's spans this frame; items_ index into it
    std::vector<LaneDrawItem> items_;
};

// Diagonal stripes over [a, b], clipped by hand rather than with a clip rect, so hundreds of hatched
// boxes stay in one draw command.
void draw_hatch(ImDrawList* draw, ImVec2 a, ImVec2 b, ImU32 colour, float spacing);

}  // namespace pinscope::gui
