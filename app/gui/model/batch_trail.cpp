#include "app/gui/model/batch_trail.h"

#include <algorithm>

namespace pinscope::gui {
namespace {

constexpr size_t kMaxScannedPerSide = 4096;

}  // namespace

std::vector<TrailStop> batch_trail(const TraceStore& store, int64_t batch, TimeNs around, TimeNs reach) {
    std::vector<TrailStop> trail;
    if (batch == kNoBatch) return trail;
    for (const LaneInfo& lane : store.lanes()) {
        std::span<const Span> spans = store.spans(lane.id);
        // The first span starting at `around`; the search walks outward from it, both ways.
        const size_t middle =
            static_cast<size_t>(std::lower_bound(spans.begin(), spans.end(), around,
                                                 [](const Span& s, TimeNs t) { return s.start < t; }) -
                                spans.begin());
        for (size_t i = middle, seen = 0; i > 0 && seen < kMaxScannedPerSide; --i, ++seen) {
            const Span& s = spans[i - 1];
            if (s.start < around - reach) break;
            if (s.batch == batch) trail.push_back({lane.id, s});
        }
        for (size_t i = middle, seen = 0; i < spans.size() && seen < kMaxScannedPerSide; ++i, ++seen) {
            const Span& s = spans[i];
            if (s.start > around + reach) break;
            if (s.batch == batch) trail.push_back({lane.id, s});
        }
    }
    std::sort(trail.begin(), trail.end(), [](const TrailStop& a, const TrailStop& b) {
        return a.span.start != b.span.start ? a.span.start < b.span.start : a.lane < b.lane;
    });
    return trail;
}

}  // namespace pinscope::gui
