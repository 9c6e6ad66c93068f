#include "core/device/startup_spans.h"

#include "core/trace/thread_lane.h"

namespace pinscope {

void StartupSpans::record(std::string_view what, TimeNs start, TimeNs end) {
    Span span;
    span.start = start;
    span.end = end;
    span.kind = SpanKind::startup;
    span.lane = this_thread_lane() != kNoLane ? this_thread_lane() : trace_.lanes().lane(LaneRole::main);
    span.name = trace_.intern(what);
    std::lock_guard lock(mutex_);
    recorder_->span(span);
}

}  // namespace pinscope
