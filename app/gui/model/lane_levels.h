#pragma once
// A lane whose spans nest (an imported trace's calls inside calls) split into one lane per depth, so
// each level folds and draws as a lane of its own, stacked under the level that holds it. The split is
// kept from frame to frame and made again only when the lane changes; a lane that does not nest is
// its own only level and costs nothing.
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "core/trace/lane_spans.h"

namespace pinscope::gui {

// Levels drawn at most; deeper spans share the last one (a depth of 127 would be a wall of rows).
constexpr size_t kMaxDrawnLevels = 16;

// How many levels `lane` draws as.
size_t level_count(const LaneSpans& lane);

class LaneLevels {
  public:
    // The lane's levels, outermost first; each is sorted by start as a lane is.
    std::span<const LaneSpans* const> of(const LaneSpans& lane);

  private:
    struct Key {
        const LaneSpans* lane = nullptr;
        size_t size = 0;
        TimeNs first_start = 0, latest_end = 0;
        bool operator==(const Key&) const = default;
    };
    Key key_;
    // Behind pointers: the GPU renderer keys a lane's upload by its address.
    std::vector<std::unique_ptr<LaneSpans>> levels_;
    std::vector<const LaneSpans*> view_;
};

}  // namespace pinscope::gui
