#include "app/gui/model/synthetic_trace.h"

#include <algorithm>

namespace pinscope::gui {

TraceStore make_synthetic_trace(const SyntheticTraceShape& shape) {
    TraceStore store(TraceLimits{std::max<size_t>(shape.spans + 1, TraceLimits{}.max_spans),
                                 TraceLimits{}.max_counter_samples});
    LaneRegistry lanes;
    const LaneId main = lanes.lane(LaneRole::main);
    const LaneId pin = lanes.lane(LaneRole::pin);
    for (int w = 0; w < shape.workers; ++w) lanes.lane(LaneRole::worker, w);
    for (int s = 0; s < shape.streams; ++s)
        for (LaneRole kind : {LaneRole::h2d, LaneRole::kernel, LaneRole::d2h}) lanes.lane(kind, s);
    store.set_lanes(lanes.snapshot());

    const TimeNs period = shape.batch_period;
    const uint64_t batch_bytes = 16ull * 3 * 64 * 64 * 4;  // ~0.8 MB in 18 us: ~44 GB/s, as on a real link
    const int64_t batches = static_cast<int64_t>(shape.spans / 6 + 1);
    size_t added = 0;
    auto add = [&](Span span) {
        if (added < shape.spans) store.add(span), ++added;
    };
    for (int64_t b = 0; added < shape.spans; ++b) {
        const TimeNs t = shape.origin + b * period;
        const bool pageable = b > batches / 3 && b < 2 * batches / 3;
        const HostMemory memory = pageable ? HostMemory::pageable : HostMemory::pinned;
        const LaneId worker = lanes.lane(LaneRole::worker, static_cast<int>(b % shape.workers));
        const int stream = static_cast<int>(b % shape.streams);
        // Every lane gets its spans in start order, as a live run records them.
        add({t - shape.workers * period + period / 10, t - period / 10, b, batch_bytes, worker,
             SpanKind::fetch, memory});
        if (!pageable) add({t, t + period / 2, b, batch_bytes, pin, SpanKind::pin, HostMemory::pinned});
        if (pageable) add({t, t + period / 2, b, 0, main, SpanKind::sync});
        add({t + period / 2, t + period * 6 / 10, b, 0, main, pageable ? SpanKind::stage : SpanKind::wait,
             memory});
        const TimeNs copy = t + period * 6 / 10;
        add({copy, copy + period * 3 / 10, b, batch_bytes, lanes.lane(LaneRole::h2d, stream), SpanKind::h2d,
             memory});
        add({copy + period * 3 / 10, copy + period * 11 / 10, b, 0, lanes.lane(LaneRole::kernel, stream),
             SpanKind::kernel});
        add({copy + period * 11 / 10, copy + period * 12 / 10, b, 4096, lanes.lane(LaneRole::d2h, stream),
             SpanKind::d2h, memory});
        store.add(CounterSample{t, static_cast<double>(2 + b % 3), CounterKind::outstanding_batches});
        store.add(CounterSample{t, static_cast<double>(b % 2), CounterKind::reorder_depth});
        store.add(CounterSample{t, pageable ? 0.0 : 8.0 * static_cast<double>(batch_bytes),
                                CounterKind::pinned_bytes});
    }
    return store;
}

}  // namespace pinscope::gui
