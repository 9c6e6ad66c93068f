#include "app/gui/model/range_summary.h"

namespace pinscope::gui {

RangeSummary summarize_range(const TraceStore& store, Interval range, int batch_size, double slow_motion) {
    RangeSummary summary;
    summary.range = range;
    if (range.length() <= 0) return summary;
    for (const LaneInfo& lane : store.lanes()) {
        IntervalList raw;
        for (const Span& s : store.spans_touching(lane.id, range))
            if (s.end > range.start && s.start < range.end) raw.push_back({s.start, s.end});
        if (raw.empty()) continue;
        const size_t spans = raw.size();
        const double covered = static_cast<double>(total_length(normalized(std::move(raw), range)));
        summary.lanes.push_back({lane.id, covered / static_cast<double>(range.length()), spans});
    }
    summary.metrics = compute_metrics(store, batch_size, MetricsWindow{range.start, range.end}, slow_motion);
    return summary;
}

}  // namespace pinscope::gui
