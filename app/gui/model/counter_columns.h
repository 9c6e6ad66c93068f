#pragma once
// A counter series (outstanding batches, reorder depth, pinned bytes) reduced to one column per pixel
// for a small plot: the highest level the column saw and the level at its right edge. One binary
// search per column, and a bounded look inside each, so the plot costs pixels, not samples.
#include <span>
#include <vector>

#include "app/gui/model/timeline_viewport.h"
#include "core/trace/span.h"

namespace pinscope::gui {

struct CounterColumn {
    double high = 0;     // highest level within the column
    double level = 0;    // level in force at the column's right edge
    bool known = false;  // false before the first sample
};

std::vector<CounterColumn> counter_columns(const std::vector<CounterSample>& series,
                                           const PixelMapping& mapping, int columns);

// The highest level among `samples` (0 for none), those of TraceStore::samples_in() for the view: the
// plot's vertical scale.
double counter_peak(std::span<const CounterSample> samples);

}  // namespace pinscope::gui
