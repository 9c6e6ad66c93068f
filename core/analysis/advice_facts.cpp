#include "core/analysis/advice_facts.h"

#include <algorithm>
#include <thread>

namespace pinscope {

double AdviceFacts::share(const IntervalList& time) const {
    const TimeNs length = window.length();
    return length > 0 ? static_cast<double>(total_length(time)) / static_cast<double>(length) : 0.0;
}

IntervalList intervals_of(const std::vector<Span>& spans, Interval window) {
    IntervalList raw;
    raw.reserve(spans.size());
    for (const Span& s : spans) raw.push_back({s.start, s.end});
    return normalized(std::move(raw), window);
}

namespace {

IntervalList busy_of(const AdviceFacts& f, LaneId lane, SpanKind kind) {
    return intervals_of(lane_spans_where(f, lane, [&](const Span& s) { return s.kind == kind; }), f.window);
}

}  // namespace

AdviceFacts gather_facts(const TraceStore& store, const Metrics& metrics, const PipelineConfig& config,
                         const AdviceContext& ctx) {
    const Interval window = ctx.window.start == 0 && ctx.window.end == 0
                                ? Interval{store.first_time(), store.last_time()}
                                : Interval{ctx.window.start, std::max(ctx.window.start, ctx.window.end)};
    const unsigned cores = ctx.cores ? ctx.cores : std::max(1u, std::thread::hardware_concurrency());
    AdviceFacts f{store, metrics, config, window, cores, ctx.pinned_budget_bytes, ctx.link_peak_gbps};
    IntervalList copies;

    for (const LaneInfo& lane : store.lanes()) {
        switch (lane.role) {
            case LaneRole::main:
                if (f.main_lane == kNoLane) f.main_lane = lane.id;
                break;
            case LaneRole::pin:
                f.pin_lane = lane.id;
                break;
            case LaneRole::worker:
                f.workers.push_back(lane.id);
                break;
            case LaneRole::h2d:
                f.h2d_lanes.push_back(lane.id);
                copies = union_of(copies, busy_of(f, lane.id, SpanKind::h2d));
                break;
            case LaneRole::d2h:
                if (f.d2h_lane == kNoLane) f.d2h_lane = lane.id;
                copies = union_of(copies, busy_of(f, lane.id, SpanKind::d2h));
                break;
            case LaneRole::kernel:
                if (f.kernel_lane == kNoLane) f.kernel_lane = lane.id;
                f.kernels = union_of(f.kernels, busy_of(f, lane.id, SpanKind::kernel));
                break;
            default:
                break;
        }
    }
    f.idle = complement(f.kernels, window);
    // As Metrics counts idle.loader: waiting for a batch, or loading it inline (fetch, pin).
    const IntervalList loading = intervals_of(lane_spans_where(f, f.main_lane,
                                                               [](const Span& s) {
                                                                   return s.kind == SpanKind::wait ||
                                                                          s.kind == SpanKind::fetch ||
                                                                          s.kind == SpanKind::pin;
                                                               }),
                                              window);
    f.starved = intersection(loading, f.idle);
    const IntervalList staging = intervals_of(
        lane_spans_where(f, f.main_lane, [](const Span& s) { return s.kind == SpanKind::stage; }), window);
    f.idle_under_copies = intersection(copies, f.idle);
    f.copies_while_idle = difference(f.idle_under_copies, union_of(f.starved, staging));
    f.pin_busy = busy_of(f, f.pin_lane, SpanKind::pin);
    f.pin_utilization = f.share(f.pin_busy);
    for (LaneId worker : f.workers) f.worker_busy.push_back(busy_of(f, worker, SpanKind::fetch));
    return f;
}

std::vector<Gap> gaps_covered_by(const AdviceFacts& f, const IntervalList& cause) {
    std::vector<Gap> gaps;
    const std::vector<Span> main_spans = lane_spans_where(f, f.main_lane, [](const Span&) { return true; });
    size_t c = 0, m = 0;  // every list is sorted: one merge
    for (const Interval& gap : f.idle) {
        while (c < cause.size() && cause[c].end <= gap.start) ++c;
        TimeNs explained = 0;
        for (size_t k = c; k < cause.size() && cause[k].start < gap.end; ++k)
            explained += std::min(gap.end, cause[k].end) - std::max(gap.start, cause[k].start);
        if (explained <= 0) continue;
        Gap g{gap, explained, kNoBatch};
        // The batch of the longest train-loop span inside the gap: the one the loop was waiting for.
        // A thread's spans follow one another, so their ends are in order too: one forward pass.
        while (m < main_spans.size() && main_spans[m].end <= gap.start) ++m;
        TimeNs best = 0;
        for (size_t k = m; k < main_spans.size() && main_spans[k].start < gap.end; ++k) {
            const Span& s = main_spans[k];
            const TimeNs inside = std::min(gap.end, s.end) - std::max(gap.start, s.start);
            if (inside > best && s.batch != kNoBatch) best = inside, g.batch = s.batch;
        }
        gaps.push_back(g);
    }
    std::stable_sort(gaps.begin(), gaps.end(),
                     [](const Gap& a, const Gap& b) { return a.explained > b.explained; });
    return gaps;
}

std::vector<SpanRef> longest(std::vector<Span> spans, size_t n) {
    std::stable_sort(spans.begin(), spans.end(),
                     [](const Span& a, const Span& b) { return a.duration() > b.duration(); });
    std::vector<SpanRef> refs;
    for (size_t i = 0; i < spans.size() && i < n; ++i)
        refs.push_back({spans[i].lane, spans[i].start, spans[i].end, spans[i].batch});
    return refs;
}

std::vector<SpanRef> gap_refs(const std::vector<Gap>& gaps, LaneId lane, size_t n) {
    std::vector<SpanRef> refs;
    for (size_t i = 0; i < gaps.size() && i < n; ++i)
        refs.push_back({lane, gaps[i].time.start, gaps[i].time.end, gaps[i].batch});
    return refs;
}

}  // namespace pinscope
