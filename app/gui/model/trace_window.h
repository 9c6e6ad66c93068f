#pragma once
// A small TraceStore holding only what one time window needs. The analysis functions read whole
// stores; the app asks about the last second (live metrics), a selected range or a recording, so it
// hands them a copy of just that window instead of the whole history.
#include "core/analysis/intervals.h"
#include "core/trace/trace_store.h"

namespace pinscope::gui {

// The lanes of `store`, its spans that overlap `window` and its counter samples inside it (plus the
// level in force when the window opens).
TraceStore copy_window(const TraceStore& store, Interval window);

// The newest time the store has data for on any lane: where a following view puts its right edge.
// Unlike TraceStore::last_time() it ignores counters, whose samples can run ahead of the spans.
TimeNs latest_span_end(const TraceStore& store);

}  // namespace pinscope::gui
