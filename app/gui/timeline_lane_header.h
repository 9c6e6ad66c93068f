#pragma once
// A group's title row ("pinscope", "GPU 0: NVIDIA H100", "Counters") with a rule under it. A header
// of a group of lanes (a process, a device) folds them away and back when clicked, with a triangle
// that says which it is and, folded, how many lanes it hides.
#include <string>
#include <utility>

#include "app/gui/timeline_lane.h"

namespace pinscope::gui {

class HeaderLane final : public TimelineLane {
  public:
    void set_title(std::string title) { title_ = std::move(title); }
    // Makes the header a group's, folded or not, over `lanes` lanes.
    void set_group(bool collapsed, size_t lanes) {
        collapsible_ = true;
        collapsed_ = collapsed;
        lanes_ = lanes;
    }
    // Whether a draw() since the last call saw a click on the header: the group should fold or unfold.
    bool take_click() { return std::exchange(clicked_, false); }

    float height(const TimelineFrame& frame) const override;
    void preprocess(const TimelineFrame&) override {}
    void draw(TimelineFrame& frame, float top) override;
    bool striped() const override { return false; }

  private:
    std::string title_;
    bool collapsible_ = false, collapsed_ = false, clicked_ = false;
    size_t lanes_ = 0;
};

}  // namespace pinscope::gui
