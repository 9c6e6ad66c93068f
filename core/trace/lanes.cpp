#include "core/trace/lanes.h"

#include <algorithm>
#include <cassert>
#include <map>
#include <tuple>

namespace pinscope {

std::string lane_name(LaneRole role, int index) {
    switch (role) {
        case LaneRole::main:
            return "train loop";
        case LaneRole::worker:
            return "worker " + std::to_string(index);
        case LaneRole::pin:
            return "pin thread";
        case LaneRole::h2d:
            return "stream " + std::to_string(index) + " H2D";
        case LaneRole::kernel:
            return "stream " + std::to_string(index) + " kernel";
        case LaneRole::d2h:
            return "stream " + std::to_string(index) + " D2H";
        case LaneRole::memset:
            return "stream " + std::to_string(index) + " memset";
        case LaneRole::other:
            return "thread " + std::to_string(index);
        case LaneRole::count:
            break;
    }
    return "?";
}

LaneGroup lane_group(LaneRole role) {
    switch (role) {
        case LaneRole::h2d:
        case LaneRole::kernel:
        case LaneRole::d2h:
        case LaneRole::memset:
            return LaneGroup::device;
        default:
            return LaneGroup::host;
    }
}

int lane_sort_key(LaneRole role, int index) {
    switch (role) {
        case LaneRole::main:
            return 0;
        case LaneRole::worker:
            return 100 + index;
        case LaneRole::pin:
            return 10'000;
        case LaneRole::other:
            return 20'000 + index;
        case LaneRole::h2d:
            return 100'000 + index * 10 + 0;
        case LaneRole::kernel:
            return 100'000 + index * 10 + 1;
        case LaneRole::d2h:
            return 100'000 + index * 10 + 2;
        case LaneRole::memset:
            return 100'000 + index * 10 + 3;
        case LaneRole::count:
            break;
    }
    return 1'000'000;
}

std::string device_group_name(int64_t ordinal) {
    return "GPU " + std::to_string(ordinal);
}

LaneInfo own_lane(LaneRole role, int index, int device) {
    LaneInfo info;
    info.role = role;
    info.index = index;
    info.name = lane_name(role, index);
    info.group = lane_group(role);
    info.sort_key = lane_sort_key(role, index);
    if (info.group == LaneGroup::host) {
        // pinscope's threads have no ids worth keeping in a file: role and index stand for them.
        info.origin = {kOwnProcess, static_cast<int64_t>(role) * 1'000'000 + index};
        info.group_name = std::string(kOwnProcessName);
    } else {
        info.origin = {device, index};
        info.group_name = device_group_name(device);
    }
    return info;
}

namespace {

auto group_key(const LaneInfo& lane) {
    return std::make_tuple(lane.group, lane.origin.process);
}

}  // namespace

std::vector<LaneGroupNode> lane_tree(const std::vector<LaneInfo>& lanes) {
    std::vector<const LaneInfo*> order;
    for (const LaneInfo& lane : lanes) order.push_back(&lane);
    std::stable_sort(order.begin(), order.end(), [](const LaneInfo* a, const LaneInfo* b) {
        return std::tie(a->group, a->origin.process, a->sort_key, a->id) <
               std::tie(b->group, b->origin.process, b->sort_key, b->id);
    });
    std::vector<LaneGroupNode> tree;
    for (const LaneInfo* lane : order) {
        if (tree.empty() || tree.back().group != lane->group || tree.back().process != lane->origin.process)
            tree.push_back({lane->group, lane->origin.process, lane->group_name, {}});
        tree.back().lanes.push_back(lane->id);
    }
    return tree;
}

LaneId LaneRegistry::lane(LaneRole role, int index) {
    std::lock_guard lock(mutex_);
    return lane_locked(own_lane(role, index));
}

LaneId LaneRegistry::device_lane(LaneRole role, int stream, int device) {
    std::lock_guard lock(mutex_);
    return lane_locked(own_lane(role, stream, device));
}

LaneId LaneRegistry::lane(const LaneInfo& wanted) {
    std::lock_guard lock(mutex_);
    return lane_locked(wanted);
}

LaneId LaneRegistry::lane_locked(const LaneInfo& wanted) {
    for (const LaneInfo& info : lanes_)
        if (info.role == wanted.role && group_key(info) == group_key(wanted) && info.origin == wanted.origin)
            return info.id;
    assert(lanes_.size() < kNoLane);
    LaneInfo info = wanted;
    info.id = static_cast<LaneId>(lanes_.size());
    lanes_.push_back(info);
    return info.id;
}

std::vector<LaneInfo> LaneRegistry::snapshot() const {
    std::lock_guard lock(mutex_);
    return lanes_;
}

size_t LaneRegistry::size() const {
    std::lock_guard lock(mutex_);
    return lanes_.size();
}

}  // namespace pinscope
