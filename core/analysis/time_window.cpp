#include "core/analysis/time_window.h"

#include <algorithm>

namespace pinscope {

std::span<const Span> spans_started_by(std::span<const Span> lane, TimeNs end) {
    auto stop =
        std::upper_bound(lane.begin(), lane.end(), end, [](TimeNs t, const Span& s) { return t < s.start; });
    return lane.first(static_cast<size_t>(stop - lane.begin()));
}

std::span<const CounterSample> samples_in_window(const std::vector<CounterSample>& series, TimeNs start,
                                                 TimeNs end) {
    const auto after = [](TimeNs t, const CounterSample& s) { return t < s.time; };
    auto first = std::upper_bound(series.begin(), series.end(), start, after);
    if (first != series.begin()) --first;
    auto stop = std::upper_bound(series.begin(), series.end(), end, after);
    if (first >= stop) return {};
    return {first, stop};
}

}  // namespace pinscope
