#include "app/gui/model/timeline_rows.h"

#include "app/gui/model/lane_order.h"

namespace pinscope::gui {

std::vector<TimelineRow> timeline_rows(const TraceStore& store, const std::set<GroupKey>& collapsed,
                                       std::string_view device_name) {
    std::vector<TimelineRow> rows;
    for (const LaneGroupNode& node : lane_tree(lanes_to_draw(store))) {
        const GroupKey key{node.group, node.process};
        TimelineRow header{true, key, node.name, node.lanes.size(), collapsed.contains(key)};
        if (header.title.empty()) header.title = node.group == LaneGroup::host ? "Host" : "Device";
        // pinscope's own device group is named by its ordinal alone: the run's GPU follows. An imported
        // trace's groups name their devices themselves.
        if (node.group == LaneGroup::device && !device_name.empty() &&
            header.title == device_group_name(node.process))
            header.title += ": " + std::string(device_name);
        rows.push_back(header);
        if (header.collapsed) continue;
        for (LaneId lane : node.lanes) rows.push_back(TimelineRow{false, key, {}, 0, false, lane});
    }
    return rows;
}

}  // namespace pinscope::gui
