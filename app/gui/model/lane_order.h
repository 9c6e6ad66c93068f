#pragma once
// The rows of the timeline: lanes that hold spans, host threads first (train loop, workers, pin
// thread), then the device's engines per stream, in LaneInfo::sort_key order. Lanes of a pipeline
// that has since been rebuilt smaller stay while their spans are in the store.
#include <vector>

#include "core/trace/trace_store.h"

namespace pinscope::gui {

std::vector<LaneInfo> lanes_to_draw(const TraceStore& store);

}  // namespace pinscope::gui
