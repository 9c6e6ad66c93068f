#pragma once
// What the advisor's rules read of a trace, measured once per advise(): which lanes are which, when the
// GPU's compute engine ran and idled, when it idled waiting for the input ("starved"), how busy each
// host thread was. Rules are small functions of these facts (advice_rules.h); the evidence helpers
// turn stretches of time back into span references a click can zoom to.
#include <optional>
#include <vector>

#include "core/analysis/advisor.h"
#include "core/analysis/intervals.h"

namespace pinscope {

struct AdviceFacts {
    // What gather_facts starts from; the rest it fills in. (A constructor, not an aggregate:
    // brace-initializing these six and leaving the rest warns under -Wmissing-field-initializers.)
    AdviceFacts(const TraceStore& store_, const Metrics& metrics_, const PipelineConfig& config_,
                Interval window_, unsigned cores_, int64_t pinned_budget_bytes_, double link_peak_gbps_)
        : store(store_),
          metrics(metrics_),
          config(config_),
          window(window_),
          cores(cores_),
          pinned_budget_bytes(pinned_budget_bytes_),
          link_peak_gbps(link_peak_gbps_) {}

    const TraceStore& store;
    const Metrics& metrics;
    const PipelineConfig& config;
    Interval window;
    unsigned cores = 1;
    int64_t pinned_budget_bytes = 0;
    double link_peak_gbps = 0;  // 0: not known

    LaneId main_lane = kNoLane;     // the train loop
    LaneId pin_lane = kNoLane;      // PyTorch's pin thread
    LaneId kernel_lane = kNoLane;   // the first kernel lane: where GPU idle gaps are shown
    std::vector<LaneId> workers;    // worker lanes
    std::vector<LaneId> h2d_lanes;  // copy lanes, host to device
    LaneId d2h_lane = kNoLane;      // the first copy lane, device to host

    IntervalList kernels;  // the compute engine busy (union of kernel spans)
    IntervalList idle;     // the window minus kernels
    // GPU idle while the train loop waited for the loader (or loaded inline): idle.loader's time.
    IntervalList starved;
    // GPU idle while a copy ran and the train loop was not waiting for the loader nor staging:
    // idle.copies's time.
    IntervalList copies_while_idle;
    IntervalList idle_under_copies;         // GPU idle while a copy ran, whatever the train loop did
    IntervalList pin_busy;                  // the pin thread pinning
    std::vector<IntervalList> worker_busy;  // by worker, building batches
    double pin_utilization = 0;             // |pin_busy| / window

    double share(const IntervalList& time) const;  // of the window
};

AdviceFacts gather_facts(const TraceStore& store, const Metrics& metrics, const PipelineConfig& config,
                         const AdviceContext& ctx);

// The spans of `lane` touching the window for which `keep(span)` holds, clipped to the window.
template <class Keep>
std::vector<Span> lane_spans_where(const AdviceFacts& f, LaneId lane, Keep&& keep) {
    std::vector<Span> out;
    if (lane == kNoLane) return out;
    for (Span span : f.store.spans_touching(lane, f.window)) {
        if (span.end <= f.window.start || span.start >= f.window.end || !keep(span)) continue;
        span.start = std::max(span.start, f.window.start);
        span.end = std::min(span.end, f.window.end);
        out.push_back(span);
    }
    return out;
}
IntervalList intervals_of(const std::vector<Span>& spans, Interval window);

// A stretch of GPU idle time that the trace explains, with the train-loop span it lies in.
struct Gap {
    Interval time;
    TimeNs explained = 0;  // how much of it the cause covers
    int64_t batch = kNoBatch;
};
// The idle gaps of the compute engine that `cause` covers any of, longest explained time first.
std::vector<Gap> gaps_covered_by(const AdviceFacts& f, const IntervalList& cause);

// The longest `spans` as references, at most kMaxEvidence.
std::vector<SpanRef> longest(std::vector<Span> spans, size_t n = kMaxEvidence);
// Gaps as references on `lane`, at most n.
std::vector<SpanRef> gap_refs(const std::vector<Gap>& gaps, LaneId lane, size_t n = kMaxEvidence);

}  // namespace pinscope
