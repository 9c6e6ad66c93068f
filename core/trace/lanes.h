#pragma once
// Lanes are the rows of the timeline. A lane is where work came from: a thread of a process, or one
// engine (copy in, compute, copy out, memset) of a stream of a device. Its role says what the pipeline
// uses it for (the train loop, a loader worker, the pin thread, a GPU engine), so metrics, the advisor
// and the exports treat a trace pinscope did not record as they treat its own. Lanes sit in a group
// tree of two levels: a process over its threads, a device over its streams' engines.
//
// pinscope's own pipeline runs in one process (0, named "pinscope") on one device, and names its lanes
// by role and index: lane(LaneRole::worker, 3); a device names its engines' lanes by its ordinal too,
// device_lane(LaneRole::h2d, stream, ordinal). A rebuilt pipeline
// (live reconfiguration) asks for the same role and index and draws on the same rows again.
#include <array>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/trace/span.h"

namespace pinscope {

enum class LaneRole : uint8_t { main, worker, pin, h2d, kernel, d2h, memset, other, count };
constexpr int kLaneRoleCount = static_cast<int>(LaneRole::count);
// How files name roles (captures); never shown to people, who see lane names.
constexpr std::array<std::string_view, kLaneRoleCount> kLaneRoleKeys = {
    "main", "worker", "pin", "h2d", "kernel", "d2h", "memset", "other"};

// The top of the group tree: a host process or a device.
enum class LaneGroup : uint8_t { host, device };

// Where a lane's work comes from. The role tells a device's engines apart on one stream.
struct LaneOrigin {
    int64_t process = 0;  // a host process's id, or a device's ordinal
    int64_t thread = 0;   // a thread's id, or a stream's
    bool operator==(const LaneOrigin&) const = default;
};

struct LaneInfo {
    LaneId id = kNoLane;
    LaneRole role = LaneRole::main;
    int index = 0;  // pinscope's worker or stream number
    std::string name;
    LaneGroup group = LaneGroup::host;
    LaneOrigin origin;
    std::string group_name;  // its process's or device's name, the same on every lane of the group
    int sort_key = 0;        // the timeline and the export draw a group's lanes in this order
};

// pinscope's own process and the name its group takes.
constexpr int64_t kOwnProcess = 0;
constexpr std::string_view kOwnProcessName = "pinscope";

std::string lane_name(LaneRole role, int index);
LaneGroup lane_group(LaneRole role);
int lane_sort_key(LaneRole role, int index);
// The lane pinscope's own pipeline draws role `role` number `index` on, for device `device`.
LaneInfo own_lane(LaneRole role, int index, int device = 0);
std::string device_group_name(int64_t ordinal);

// One node of the group tree as the timeline draws it: its lanes in drawing order.
struct LaneGroupNode {
    LaneGroup group = LaneGroup::host;
    int64_t process = 0;
    std::string name;
    std::vector<LaneId> lanes;
};
// Hosts before devices, each by process id or ordinal; a group's lanes by sort key, then id.
std::vector<LaneGroupNode> lane_tree(const std::vector<LaneInfo>& lanes);

// Thread-safe: lanes are registered while pipelines are built (rarely), read by the views.
class LaneRegistry {
  public:
    LaneId lane(LaneRole role, int index = 0);  // pinscope's own: get or create (device lanes: GPU 0)
    // The lane of engine `role` of stream `stream` on the device with ordinal `device`: each device of
    // a trace that several devices share draws on its own rows.
    LaneId device_lane(LaneRole role, int stream, int device);
    // Get or create the lane of `wanted`'s group, origin and role (its id is ignored; its name, group
    // name and sort key are taken when the lane is created).
    LaneId lane(const LaneInfo& wanted);
    std::vector<LaneInfo> snapshot() const;  // in id order
    size_t size() const;

  private:
    LaneId lane_locked(const LaneInfo& wanted);

    mutable std::mutex mutex_;
    std::vector<LaneInfo> lanes_;
};

}  // namespace pinscope
