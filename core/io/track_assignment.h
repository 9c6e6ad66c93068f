#pragma once
// Chrome's trace format requires the slices of one thread to nest. A lane can hold spans that partly
// overlap (two copies in flight on one stream, CUPTI records of concurrent work), so an exporter
// spreads each lane over as few tracks as it can: greedy interval partitioning, lowest free track first.
#include <cstdint>
#include <span>
#include <vector>

#include "core/trace/span.h"

namespace pinscope {

constexpr uint32_t kNoTrack = UINT32_MAX;

struct TrackAssignment {
    std::vector<uint32_t> track_of;  // parallel to the spans given; kNoTrack for spans left out
    uint32_t tracks = 0;             // tracks used, numbered 0..tracks-1
};

// `spans` sorted by start (as TraceStore keeps a lane). Spans that end before `from` are left out.
// No two spans on one track overlap; a span that starts exactly where another ends may share its track.
TrackAssignment assign_tracks(std::span<const Span> spans, TimeNs from);

}  // namespace pinscope
