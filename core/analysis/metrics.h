#pragma once
// The numbers that answer "is the GPU fed?": throughput, copy bandwidth, how much copy time hides under
// kernels (overlap), how long the train loop waits for data while the GPU idles (stall), and stage
// latencies. Computed from a TraceStore over a time window; every fraction is in [0, 1] and an empty
// store or window gives zeros.
//
// Rules, so numbers from two windows add up instead of double counting:
// - A span "ends in the window" when start < span.end <= end (half-open on the left). Byte totals,
//   stage latencies and batch counts use whole spans that end in the window; they are not prorated.
// - Time fractions (gpu_busy, overlap, stall) use spans clipped to [start, end).
// - Percentiles are nearest-rank: the value at 1-based rank ceil(p/100 * n) of the sorted durations.
#include <cstdint>
#include <vector>

#include "core/trace/trace_store.h"

namespace pinscope {

struct StageLatency {
    SpanKind kind = SpanKind::count;  // SpanKind::count for batch_latency, which spans every stage
    size_t count = 0;
    double p50_us = 0, p99_us = 0, mean_us = 0;
};

struct MetricsWindow {
    TimeNs start = 0, end = 0;  // both 0: the whole store (first_time() .. last_time())
};

struct Metrics {
    TimeNs start = 0, end = 0;  // the window actually used
    double seconds = 0;

    int64_t batches = 0;  // distinct batch ids whose last kernel span ends in the window
    int64_t samples = 0;  // batches * batch_size
    double samples_per_s = 0, batches_per_s = 0;

    uint64_t h2d_bytes = 0, d2h_bytes = 0;  // of h2d / d2h spans that end in the window
    // Copy bandwidth, as a profiler shows it: bytes over the time the copies were running (the union
    // of those spans, so two copies sharing the link are not counted twice). This is what pinning
    // changes: about 54 GB/s pinned against 6 to 13 pageable on the H100.
    double h2d_gbps = 0, d2h_gbps = 0;
    // What the pipeline moved: bytes over the window's seconds. Host-bound runs sit far below the
    // copy bandwidth; a copy-bound run approaches it.
    double h2d_sustained_gbps = 0, d2h_sustained_gbps = 0;

    // How busy each kind of GPU engine was: the compute engine (|union of kernel spans| / window) and
    // the copy engines (|union of h2d spans|, |union of d2h spans|, |union of both| over the window).
    // gpu_busy is the compute engine's share, as PyTorch's profiler counts "GPU utilization".
    double gpu_busy = 0;
    double h2d_busy = 0, d2h_busy = 0, copy_busy = 0;
    double overlap = 0;  // |union(h2d, d2h) ∩ union(kernel)| / |union(kernel)|; 0 without kernel time

    // The time no kernel ran (1 - gpu_busy), by what held it up. The five shares are disjoint and add up
    // to gpu_idle; where causes overlap, the first listed wins.
    struct IdleCauses {
        double loader = 0;   // the train loop waiting for a batch (wait), or loading it inline (workers=0)
        double staging = 0;  // the train loop staging pageable copies through the driver's bounce buffer
        // Waiting for copies: a copy engine busy (H2D or D2H) while no kernel runs, whatever the train
        // loop does meanwhile. On a saturated link the next kernel's input is still crossing it.
        double copies = 0;
        double sync = 0;   // the train loop blocked on the GPU with no copy running: a full stream, an event
        double other = 0;  // none of these: issuing work, or a host too busy to issue it
    };
    double gpu_idle = 0;
    IdleCauses idle;
    double stall = 0;  // idle.loader: the loader kept the GPU waiting (kept under its old name)

    // Highest level in the window, counting the level in force when the window starts.
    double outstanding_max = 0, reorder_max = 0, pinned_bytes_max = 0;

    double pageable_h2d_fraction = 0;  // share of h2d bytes copied from pageable memory
    // The h2d bytes by host memory, and each kind's bandwidth while its copies ran (union of its spans).
    uint64_t h2d_pageable_bytes = 0, h2d_pinned_bytes = 0;
    double h2d_pageable_gbps = 0, h2d_pinned_gbps = 0;
    // The share of the window the train loop spent getting data: waiting in the loader's next(), or
    // loading inline (num_workers=0), whether or not a kernel ran meanwhile (stall counts only the part
    // with the GPU idle).
    double data_wait = 0;
    // Over the whole trace, not the window (start-up comes before the first batch), in real seconds:
    // the start-up spans (context, fresh allocations) summed, and what a benchmark's stopwatch read
    // (naive_benchmark's one timed copy). Set by add_startup_totals, not compute_metrics.
    double startup_s = 0;
    double stopwatch_s = 0;

    std::vector<StageLatency>
        latencies;               // one per SpanKind with spans ending in the window, in SpanKind order
    StageLatency batch_latency;  // per counted batch: its first span start (any lane) to its last span end
};

// `slow_motion`: the trace was recorded that many times slower than real time (the slow_motion knob);
// seconds, rates and latencies come back in real units, fractions are the same either way.
Metrics compute_metrics(const TraceStore& store, int batch_size, MetricsWindow window = {},
                        double slow_motion = 1);
// Fills startup_s and stopwatch_s from every host span of the trace: once per bounded run or opened
// capture, never per frame (it reads every span, wherever the window is).
void add_startup_totals(const TraceStore& store, Metrics& metrics, double slow_motion = 1);

}  // namespace pinscope
