#pragma once
// The timeline's rows, top to bottom: for each group of the lane tree (a process and its threads, a
// device and its streams) a header, then the group's lanes unless it is collapsed. Lanes without spans
// (a pipeline since rebuilt smaller) drop out; a group left without lanes has no header.
#include <compare>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/trace/trace_store.h"

namespace pinscope::gui {

// A group of the lane tree: a host process, or a device by its ordinal.
struct GroupKey {
    LaneGroup group = LaneGroup::host;
    int64_t process = 0;
    auto operator<=>(const GroupKey&) const = default;
};

struct TimelineRow {
    bool header = false;
    GroupKey group;
    std::string title;  // a header's: the group's name
    size_t lanes = 0;   // a header's: how many lanes the group has, shown or not
    bool collapsed = false;
    LaneId lane = kNoLane;  // a lane's row
};

// `device_name` (the run's GPU, may be empty) follows the name of pinscope's own device group ("GPU 0").
std::vector<TimelineRow> timeline_rows(const TraceStore& store, const std::set<GroupKey>& collapsed,
                                       std::string_view device_name = {});

}  // namespace pinscope::gui
