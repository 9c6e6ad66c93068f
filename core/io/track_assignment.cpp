#include "core/io/track_assignment.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <utility>

namespace pinscope {

TrackAssignment assign_tracks(std::span<const Span> spans, TimeNs from) {
    TrackAssignment result;
    result.track_of.assign(spans.size(), kNoTrack);
    using Busy = std::pair<TimeNs, uint32_t>;  // (end, track)
    std::priority_queue<Busy, std::vector<Busy>, std::greater<>> busy;
    std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>> free;
    for (size_t i = 0; i < spans.size(); ++i) {
        const Span& span = spans[i];
        if (span.end < from) continue;
        while (!busy.empty() && busy.top().first <= span.start) {
            free.push(busy.top().second);
            busy.pop();
        }
        uint32_t track = result.tracks;
        if (free.empty()) {
            ++result.tracks;
        } else {
            track = free.top();
            free.pop();
        }
        result.track_of[i] = track;
        busy.push({std::max(span.end, span.start), track});
    }
    return result;
}

}  // namespace pinscope
