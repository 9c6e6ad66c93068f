#include "core/trace/lanes.h"

#include <cassert>

namespace pinscope {

std::string lane_name(LaneKind kind, int index) {
    switch (kind) {
        case LaneKind::main:
            return "train loop";
        case LaneKind::worker:
            return "worker " + std::to_string(index);
        case LaneKind::pin:
            return "pin thread";
        case LaneKind::h2d:
            return "stream " + std::to_string(index) + " H2D";
        case LaneKind::kernel:
            return "stream " + std::to_string(index) + " kernel";
        case LaneKind::d2h:
            return "stream " + std::to_string(index) + " D2H";
        case LaneKind::count:
            break;
    }
    return "?";
}

LaneGroup lane_group(LaneKind kind) {
    switch (kind) {
        case LaneKind::h2d:
        case LaneKind::kernel:
        case LaneKind::d2h:
            return LaneGroup::device;
        default:
            return LaneGroup::host;
    }
}

int lane_sort_key(LaneKind kind, int index) {
    switch (kind) {
        case LaneKind::main:
            return 0;
        case LaneKind::worker:
            return 100 + index;
        case LaneKind::pin:
            return 10'000;
        case LaneKind::h2d:
            return 100'000 + index * 10 + 0;
        case LaneKind::kernel:
            return 100'000 + index * 10 + 1;
        case LaneKind::d2h:
            return 100'000 + index * 10 + 2;
        case LaneKind::count:
            break;
    }
    return 1'000'000;
}

LaneId LaneRegistry::lane(LaneKind kind, int index) {
    std::lock_guard lock(mutex_);
    for (const LaneInfo& info : lanes_)
        if (info.kind == kind && info.index == index) return info.id;
    assert(lanes_.size() < kNoLane);
    LaneInfo info;
    info.id = static_cast<LaneId>(lanes_.size());
    info.kind = kind;
    info.index = index;
    info.name = lane_name(kind, index);
    info.group = lane_group(kind);
    info.sort_key = lane_sort_key(kind, index);
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
