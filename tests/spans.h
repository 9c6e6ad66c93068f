#pragma once
// One span, field by field, for tests that build traces by hand (the analysis's and the advisor's).
#include <cstdint>

#include "core/trace/span.h"

namespace pinscope::testing {

inline Span span(LaneId lane, SpanKind kind, TimeNs start, TimeNs end, int64_t batch = kNoBatch,
                 uint64_t bytes = 0, HostMemory memory = HostMemory::none) {
    Span s;
    s.lane = lane;
    s.kind = kind;
    s.start = start;
    s.end = end;
    s.batch = batch;
    s.bytes = bytes;
    s.memory = memory;
    return s;
}

}  // namespace pinscope::testing
