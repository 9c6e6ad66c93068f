#include "app/gui/model/range_summary.h"

#include "app/gui/model/trace_window.h"

namespace pinscope::gui {

RangeSummary summarize_range(const TraceStore& store, Interval range, int batch_size) {
    RangeSummary summary;
    summary.range = range;
    if (range.length() <= 0) return summary;
    const TraceStore window = copy_window(store, range);
    for (const LaneInfo& lane : window.lanes()) {
        std::span<const Span> spans = window.spans(lane.id);
        if (spans.empty()) continue;
        IntervalList raw;
        raw.reserve(spans.size());
        for (const Span& s : spans) raw.push_back({s.start, s.end});
        const double covered = static_cast<double>(total_length(normalized(std::move(raw), range)));
        summary.lanes.push_back({lane.id, covered / static_cast<double>(range.length()), spans.size()});
    }
    summary.metrics = compute_metrics(window, batch_size, MetricsWindow{range.start, range.end});
    return summary;
}

}  // namespace pinscope::gui
