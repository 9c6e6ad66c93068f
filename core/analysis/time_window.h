#pragma once
// The two questions every reader of a time window asks of a TraceStore, answered by binary search:
// which spans of a lane can touch the window, and which counter samples say what levels it saw.
#include <span>
#include <vector>

#include "core/trace/span.h"

namespace pinscope {

// Spans of one lane (sorted by start) that start at or before `end`: the only ones that can touch a
// window ending there. Spans are sorted by start, not end, so those that ended before the window opened
// are still among them; the caller skips them.
std::span<const Span> spans_started_by(std::span<const Span> lane, TimeNs end);

// Samples of one series (sorted by time) from the one in force at `start` (the last at or before it)
// to the last at or before `end`.
std::span<const CounterSample> samples_in_window(const std::vector<CounterSample>& series, TimeNs start,
                                                 TimeNs end);

}  // namespace pinscope
