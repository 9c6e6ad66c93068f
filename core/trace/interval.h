#pragma once
// A stretch of time [start, end): what windows, selections and views are made of.
#include "core/trace/clock.h"

namespace pinscope {

struct Interval {
    TimeNs start = 0;
    TimeNs end = 0;

    TimeNs length() const { return end - start; }
    bool operator==(const Interval&) const = default;
};

}  // namespace pinscope
