#include "app/gui/model/trace_window.h"

#include <algorithm>

#include "app/gui/model/span_folding.h"
#include "core/analysis/time_window.h"

namespace pinscope::gui {

TraceStore copy_window(const TraceStore& store, Interval window) {
    TraceStore copy;
    copy.set_lanes(store.lanes());
    for (const LaneInfo& lane : store.lanes()) {
        std::span<const Span> spans = store.spans(lane.id);
        std::span<const Span> candidates = spans_started_by(spans, window.end);
        for (size_t i = first_visible(spans, window.start); i < candidates.size(); ++i)
            if (spans[i].end > window.start) copy.add(spans[i]);
    }
    for (int kind = 0; kind < kCounterKindCount; ++kind)
        for (const CounterSample& sample :
             samples_in_window(store.counters(static_cast<CounterKind>(kind)), window.start, window.end))
            copy.add(sample);
    return copy;
}

TimeNs latest_span_end(const TraceStore& store) {
    TimeNs latest = 0;
    for (const LaneInfo& lane : store.lanes()) {
        std::span<const Span> spans = store.spans(lane.id);
        // Sorted by start: the last few spans hold the latest end unless one long span runs past them.
        const size_t from = spans.size() > 8 ? spans.size() - 8 : 0;
        for (size_t i = from; i < spans.size(); ++i) latest = std::max(latest, spans[i].end);
    }
    return latest;
}

}  // namespace pinscope::gui
