#pragma once
// A group's title row ("Host", "Device: <GPU>", "Counters") with a rule under it.
#include <string>

#include "app/gui/timeline_lane.h"

namespace pinscope::gui {

class HeaderLane final : public TimelineLane {
  public:
    void set_title(std::string title) { title_ = std::move(title); }

    float height(const TimelineFrame& frame) const override;
    void preprocess(const TimelineFrame&) override {}
    void draw(TimelineFrame& frame, float top) override;
    bool striped() const override { return false; }

  private:
    std::string title_;
};

}  // namespace pinscope::gui
