#include "app/gui/model/span_folding.h"

#include <algorithm>

#include "core/trace/span_runs.h"

namespace pinscope::gui {

void fold_lane(const LaneSpans& spans, const PixelMapping& mapping, std::vector<LaneDrawItem>& out,
               double min_px, double max_px) {
    out.clear();
    if (spans.empty() || mapping.range.length() <= 0) return;
    thread_local std::vector<SpanRun> runs;  // the GUI thread's, reused frame after frame
    span_runs(spans, mapping.range, mapping.ns_of_px(min_px), mapping.ns_of_px(max_px), runs);
    const std::span<const Span> lane = spans.all();
    for (const SpanRun& run : runs) {
        const Span& first = lane[run.first];
        LaneDrawItem item{
            mapping.x_of(run.start), mapping.x_of(run.end), run.first, run.count, first.kind, first.memory};
        if (item.folded()) {
            item.x1 = std::max(item.x1, item.x0 + min_px);
            item.occupancy = std::min(1.0, static_cast<double>(run.busy) /
                                               static_cast<double>(std::max<TimeNs>(1, run.end - run.start)));
        }
        out.push_back(item);
    }
}

}  // namespace pinscope::gui
