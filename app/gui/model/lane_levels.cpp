#include "app/gui/model/lane_levels.h"

#include <algorithm>

namespace pinscope::gui {

size_t level_count(const LaneSpans& lane) {
    return std::min<size_t>(lane.max_depth(), kMaxDrawnLevels - 1) + 1;
}

std::span<const LaneSpans* const> LaneLevels::of(const LaneSpans& lane) {
    const size_t count = level_count(lane);
    if (count == 1) {
        view_.assign(1, &lane);
        key_ = {};
        levels_.clear();
        return view_;
    }
    const Key key{&lane, lane.size(), lane.empty() ? 0 : lane.all().front().start,
                  lane.empty() ? 0 : lane.latest_end()};
    if (key == key_ && levels_.size() == count) return view_;
    key_ = key;
    levels_.clear();
    view_.clear();
    std::vector<std::vector<Span>> split(count);
    for (const Span& span : lane.all()) split[std::min<size_t>(span.depth, count - 1)].push_back(span);
    for (std::vector<Span>& spans : split) {
        levels_.push_back(std::make_unique<LaneSpans>());
        levels_.back()->assign(std::move(spans));  // still in start order: a subsequence of the lane
        view_.push_back(levels_.back().get());
    }
    return view_;
}

}  // namespace pinscope::gui
