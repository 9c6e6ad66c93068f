#pragma once
// Lanes are the rows of the timeline: one per host thread that the pipeline runs (the train loop,
// each worker, the pin thread) and, under the device, one per engine and stream. A lane is identified
// by its kind and index, so a rebuilt pipeline (live reconfiguration) draws on the same rows again.
#include <array>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/trace/span.h"

namespace pinscope {

enum class LaneKind : uint8_t { main, worker, pin, h2d, kernel, d2h, count };
constexpr int kLaneKindCount = static_cast<int>(LaneKind::count);
// How files name lane kinds (captures); never shown to people, who see lane_name().
constexpr std::array<std::string_view, kLaneKindCount> kLaneKindKeys = {"main", "worker", "pin",
                                                                        "h2d",  "kernel", "d2h"};

enum class LaneGroup : uint8_t { host, device };

struct LaneInfo {
    LaneId id = kNoLane;
    LaneKind kind = LaneKind::main;
    int index = 0;  // worker number or stream number
    std::string name;
    LaneGroup group = LaneGroup::host;
    int sort_key = 0;  // the timeline and the export draw lanes in this order
};

std::string lane_name(LaneKind kind, int index);
LaneGroup lane_group(LaneKind kind);
int lane_sort_key(LaneKind kind, int index);

// Thread-safe: lanes are registered while pipelines are built (rarely), read by the views.
class LaneRegistry {
  public:
    LaneId lane(LaneKind kind, int index = 0);  // get or create
    std::vector<LaneInfo> snapshot() const;     // in id order
    size_t size() const;

  private:
    mutable std::mutex mutex_;
    std::vector<LaneInfo> lanes_;
};

}  // namespace pinscope
