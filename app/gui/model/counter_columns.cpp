#include "app/gui/model/counter_columns.h"

#include <algorithm>

namespace pinscope::gui {
namespace {

constexpr size_t kMaxLookedAtPerColumn = 64;  // beyond this, every k-th sample stands for the rest

size_t first_after(const std::vector<CounterSample>& series, size_t from, TimeNs t) {
    auto it = std::upper_bound(series.begin() + static_cast<std::ptrdiff_t>(from), series.end(), t,
                               [](TimeNs time, const CounterSample& s) { return time < s.time; });
    return static_cast<size_t>(it - series.begin());
}

// Columns move right in order, so each search gallops from where the last one ended (1, 2, 4, ...
// samples ahead) and touches memory near it, instead of bisecting the whole series every column.
size_t next_after(const std::vector<CounterSample>& series, size_t from, TimeNs t) {
    size_t low = from, step = 1;
    while (low < series.size() && series[low].time <= t) {
        const size_t probe = std::min(series.size(), from + step);
        if (probe >= series.size() || series[probe].time > t) {
            auto it = std::upper_bound(series.begin() + static_cast<std::ptrdiff_t>(low + 1),
                                       series.begin() + static_cast<std::ptrdiff_t>(probe), t,
                                       [](TimeNs time, const CounterSample& s) { return time < s.time; });
            return static_cast<size_t>(it - series.begin());
        }
        low = probe;
        step *= 2;
    }
    return low;
}

}  // namespace

std::vector<CounterColumn> counter_columns(const std::vector<CounterSample>& series,
                                           const PixelMapping& mapping, int columns) {
    std::vector<CounterColumn> out(static_cast<size_t>(std::max(columns, 0)));
    if (series.empty() || out.empty()) return out;
    const double px_per_column = mapping.width_px / static_cast<double>(out.size());
    size_t begin = first_after(series, 0, mapping.range.start);  // samples after the previous column's edge
    for (size_t c = 0; c < out.size(); ++c) {
        const size_t end =
            next_after(series, begin, mapping.time_at(px_per_column * static_cast<double>(c + 1)));
        CounterColumn& column = out[c];
        if (end == 0) continue;  // no sample yet
        column.known = true;
        column.level = series[end - 1].value;
        column.high = begin > 0 ? series[begin - 1].value : column.level;  // the level the column opened with
        const size_t n = end > begin ? end - begin : 0;
        const size_t step = std::max<size_t>(1, n / kMaxLookedAtPerColumn);
        for (size_t i = begin; i < end; i += step) column.high = std::max(column.high, series[i].value);
        column.high = std::max(column.high, column.level);
        begin = std::max(begin, end);
    }
    return out;
}

double counter_peak(std::span<const CounterSample> samples) {
    double peak = 0;
    const size_t step = std::max<size_t>(1, samples.size() / 4096);
    for (size_t i = 0; i < samples.size(); i += step) peak = std::max(peak, samples[i].value);
    return peak;
}

}  // namespace pinscope::gui
