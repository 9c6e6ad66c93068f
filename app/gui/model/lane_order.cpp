#include "app/gui/model/lane_order.h"

#include <algorithm>

namespace pinscope::gui {

std::vector<LaneInfo> lanes_to_draw(const TraceStore& store) {
    std::vector<LaneInfo> lanes;
    for (const LaneInfo& lane : store.lanes())
        if (!store.spans(lane.id).empty()) lanes.push_back(lane);
    std::stable_sort(lanes.begin(), lanes.end(), [](const LaneInfo& a, const LaneInfo& b) {
        if (a.group != b.group) return a.group < b.group;
        return a.sort_key < b.sort_key;
    });
    return lanes;
}

}  // namespace pinscope::gui
