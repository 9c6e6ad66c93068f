#include "app/gui/model/frame_stats.h"

#include <algorithm>
#include <cmath>

namespace pinscope::gui {

TimeNs FrameStats::percentile(double percent) const {
    if (times_.empty()) return 0;
    std::vector<TimeNs> sorted = times_;
    std::sort(sorted.begin(), sorted.end());
    const double rank =
        std::ceil(std::clamp(percent, 0.0, 100.0) / 100.0 * static_cast<double>(sorted.size()));
    const size_t index = static_cast<size_t>(std::max(rank, 1.0)) - 1;
    return sorted[std::min(index, sorted.size() - 1)];
}

TimeNs FrameStats::max() const {
    return times_.empty() ? 0 : *std::max_element(times_.begin(), times_.end());
}

}  // namespace pinscope::gui
