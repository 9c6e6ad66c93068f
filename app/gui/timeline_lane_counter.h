#pragma once
// A counter as a small plot under the lanes (outstanding batches, reorder-buffer depth, pinned
// bytes in use): one column per pixel, the column's highest level as a bar and the level at its
// edge as a line, scaled to the highest level in view.
#include <vector>

#include "app/gui/model/counter_columns.h"
#include "app/gui/timeline_lane.h"

namespace pinscope::gui {

class CounterLane final : public TimelineLane {
  public:
    explicit CounterLane(CounterKind kind) : kind_(kind) {}

    float height(const TimelineFrame& frame) const override { return frame.row_height * 2.f; }
    void preprocess(const TimelineFrame& frame) override;
    void draw(TimelineFrame& frame, float top) override;

    CounterKind kind() const { return kind_; }
    // The level at the right edge of the view ("edge: 3"): for the label column. (The metric tiles
    // say the level now, at the newest data; the two differ while the view is paused or trails.)
    std::string describe() const;

  private:
    void plot(TimelineFrame& frame, float top);

    CounterKind kind_;
    std::vector<CounterColumn> columns_;
    double peak_ = 0;
    double current_ = 0;
};

}  // namespace pinscope::gui
