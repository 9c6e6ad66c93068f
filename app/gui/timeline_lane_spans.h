#pragma once
// A lane of spans: a host thread (train loop, worker, pin thread) or a device engine on one stream
// (H2D, kernel, D2H). One colour per span kind or category; copies from pageable memory are hatched and
// outlined in red; folds of spans too narrow to draw show how many they hold. Spans that nest (an
// imported trace's calls inside calls) stack one level per depth, each level as tall as a lane.
#include <vector>

#include "app/gui/model/lane_levels.h"
#include "app/gui/model/span_folding.h"
#include "app/gui/timeline_lane.h"

namespace pinscope::gui {

class SpanLane final : public TimelineLane {
  public:
    // `other`: a lane of the compared capture (B) rather than of the trace shown.
    explicit SpanLane(LaneId lane, bool other = false) : lane_(lane), other_(other) {}

    float height(const TimelineFrame& frame) const override;
    void preprocess(const TimelineFrame& frame) override;
    void draw(TimelineFrame& frame, float top) override;
    std::optional<LaneId> trace_lane() const override { return lane_; }
    bool shows_other() const override { return other_; }
    size_t drawn_items() const override;
    void kinds_in_view(std::vector<bool>& kinds, bool& pageable) const override;

  private:
    // One level of nesting: its spans (the whole lane when nothing nests) and what to draw of them.
    struct Level {
        const LaneSpans* spans = nullptr;
        std::vector<LaneDrawItem> items;  // index into spans->all()
    };

    void label(const TimelineFrame& frame, float top) const;
    void boxes(TimelineFrame& frame, const Level& level, float top);

    LaneId lane_;
    bool other_;
    PixelMapping mapping_;  // this frame's, for the lane's own clock
    LaneLevels split_;
    std::vector<Level> levels_;
};

// Diagonal stripes over [a, b], clipped by hand rather than with a clip rect, so hundreds of hatched
// boxes stay in one draw command.
void draw_hatch(ImDrawList* draw, ImVec2 a, ImVec2 b, ImU32 colour, float spacing);

}  // namespace pinscope::gui
