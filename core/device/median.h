#pragma once
// The median of repeated timings, as every device measurement reports them (the upper one of an
// even count: no averaging of two samples).
#include <algorithm>
#include <vector>

namespace pinscope {

inline double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

}  // namespace pinscope
