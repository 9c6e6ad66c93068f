// The rules about page-locked memory: batches prefetched further ahead than the GPU ever needed, and
// pinned memory past its budget. Pinned memory cannot be paged out, so what the pipeline holds for
// nothing is taken from everything else on the machine.
#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include <fmt/format.h>

#include "core/analysis/advice_rules.h"
#include "core/units/units.h"

namespace pinscope {
namespace {

// The level a counter stayed at or above for `share` of the window's time: a floor that a blip does not
// move (the loader's shutdown drops every level to 0 at the very end of a run).
double level_held(const AdviceFacts& f, CounterKind kind, double share) {
    const std::span<const CounterSample> samples = f.store.samples_in(kind, f.window);
    if (samples.empty() || f.window.length() <= 0) return 0;
    std::vector<std::pair<double, TimeNs>> held;  // level, how long it was in force
    for (size_t i = 0; i < samples.size(); ++i) {
        const TimeNs from = std::max(samples[i].time, f.window.start);
        const TimeNs to = i + 1 < samples.size() ? std::min(samples[i + 1].time, f.window.end) : f.window.end;
        if (to > from) held.emplace_back(samples[i].value, to - from);
    }
    std::sort(held.begin(), held.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    const double needed = share * static_cast<double>(f.window.length());
    double covered = 0;
    for (const auto& [level, time] : held) {
        covered += static_cast<double>(time);
        if (covered >= needed) return level;
    }
    return held.empty() ? 0 : held.back().first;
}

// How long batches sat built before the GPU took them: from the end of each batch's fetch (on its
// worker's lane) to the start of its first H2D copy. The longest first.
std::vector<SpanRef> batches_waiting(const AdviceFacts& f) {
    std::unordered_map<int64_t, TimeNs> first_copy;
    for (LaneId lane : f.h2d_lanes)
        for (const Span& s :
             lane_spans_where(f, lane, [](const Span& x) { return x.kind == SpanKind::h2d; })) {
            auto [it, added] = first_copy.emplace(s.batch, s.start);
            if (!added) it->second = std::min(it->second, s.start);
        }
    std::vector<Span> waiting;
    for (LaneId lane : f.workers)
        for (const Span& s :
             lane_spans_where(f, lane, [](const Span& x) { return x.kind == SpanKind::fetch; })) {
            const auto copy = first_copy.find(s.batch);
            if (copy == first_copy.end() || copy->second <= s.end) continue;
            Span held = s;
            held.start = s.end;
            held.end = copy->second;
            waiting.push_back(held);
        }
    return longest(std::move(waiting));
}

}  // namespace

// A deep prefetch on a GPU-bound load: the outstanding batches stayed at or above some level 95% of the
// window, so that many batches sat in pinned memory and the GPU practically never needed them.
// The depth that suffices is what the train loop actually drew on, plus one batch per worker of slack;
// never below PyTorch's default of 2.
std::optional<Finding> prefetch_too_deep(const AdviceFacts& f) {
    const PipelineConfig& c = f.config;
    if (c.num_workers == 0 || !c.pin_memory || f.metrics.pinned_bytes_max <= 0) return std::nullopt;
    const int cap = c.max_outstanding();
    // Batches that were outstanding 95% of the time: a buffer the train loop practically never drew on.
    const double never_used = level_held(f, CounterKind::outstanding_batches, 0.95);
    const int drawn = std::max(0, cap - static_cast<int>(never_used));
    const int enough = std::max(PipelineConfig::kDefaultPrefetchFactor,
                                static_cast<int>(std::ceil(static_cast<double>(drawn) / c.num_workers)) + 1);
    if (enough >= c.effective_prefetch_factor()) return std::nullopt;
    const double freed = static_cast<double>((c.effective_prefetch_factor() - enough) * c.num_workers) *
                         static_cast<double>(c.batch_bytes());
    const double cost = std::min(1.0, freed / f.metrics.pinned_bytes_max);
    if (cost < kWorthFixing) return std::nullopt;
    Finding finding;
    finding.explanation = fmt::format(
        "prefetch_factor={} lets {} batches be outstanding, and {:.0f} of them were waiting 95% of the time "
        "(the GPU waited for data only {} of the time): they held pinned memory the GPU never needed. Up to "
        "{} was pinned; a depth of {} would free about {}, memory the rest of the machine cannot use while "
        "it is page-locked.",
        c.effective_prefetch_factor(), cap, never_used, format_share(f.metrics.idle.loader),
        format_bytes(f.metrics.pinned_bytes_max), enough, format_bytes(freed));
    finding.cost = cost;
    finding.evidence = batches_waiting(f);
    finding.fix = {{"prefetch_factor", enough}};
    finding.fix_text = fmt::format(
        "Use prefetch_factor={}: enough batches ahead to keep the GPU fed, and the pinned memory of the rest "
        "given back.",
        enough);
    return finding;
}

// Pinned memory within one batch of the budget: the next pinned allocation (a reconfiguration, a deeper
// prefetch) fails, and pinned memory past what the machine can spare slows everything else on it.
std::optional<Finding> pinned_over_budget(const AdviceFacts& f) {
    const PipelineConfig& c = f.config;
    const double budget = static_cast<double>(f.pinned_budget_bytes);
    const double held = f.metrics.pinned_bytes_max;
    const double batch = static_cast<double>(c.batch_bytes());
    if (budget <= 0 || held <= 0 || held + batch <= budget) return std::nullopt;
    Finding finding;
    finding.title = held > budget ? "Pinned memory over budget" : "Pinned memory at its budget";
    finding.explanation = fmt::format(
        "The pipeline held up to {} of page-locked memory against a budget of {}: {} Each outstanding "
        "batch holds {}.",
        format_bytes(held), format_bytes(budget),
        held > budget
            ? "more than the machine should give up."
            : "not one more batch fits, so a deeper prefetch or more workers would fail to allocate.",
        format_bytes(batch));
    finding.cost = std::min(1.0, held / budget);
    // The moment the pinned level peaked: no lane, a time to zoom to.
    for (const CounterSample& s : f.store.samples_in(CounterKind::pinned_bytes, f.window))
        if (s.value >= held && s.time >= f.window.start) {
            finding.evidence.push_back({kNoLane, s.time, s.time, kNoBatch});
            break;
        }
    // Batches to give back: enough to leave one batch of room.
    const int over = static_cast<int>(std::ceil((held + batch - budget) / batch));
    const int prefetch = c.num_workers > 0 ? (c.max_outstanding() - over) / c.num_workers : 0;
    if (prefetch >= 1) {
        finding.fix = {{"prefetch_factor", prefetch}};
        finding.fix_text = fmt::format(
            "Use prefetch_factor={}: {} fewer batches outstanding, and their pinned memory given back.",
            prefetch, c.max_outstanding() - prefetch * c.num_workers);
    } else {
        const int smaller =
            std::max(1, static_cast<int>(c.batch_size * std::min(1.0, budget / (held + batch)) / 2));
        finding.fix = {{"batch_size", smaller}};
        finding.fix_text = fmt::format("Use batch_size={}: every pinned buffer is smaller.", smaller);
    }
    return finding;
}

}  // namespace pinscope
