// The rules about the loader: the GPU waiting for data (starvation) and its causes: too few workers,
// the pin thread as the bottleneck, a prefetch too shallow to keep idle workers busy, and more CPU-bound
// workers than the host has cores.
#include <algorithm>
#include <cmath>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/analysis/advice_rules.h"
#include "core/config/knobs.h"
#include "core/units/units.h"

namespace pinscope {

bool cpu_bound_workers(const PipelineConfig& config) {
    return config.io_us <= config.decode_us;  // with neither, collating is all they do: CPU work too
}

namespace {

// A fix stays within the knob's range (the knob table's).
int highest(std::string_view key) {
    return static_cast<int>(knob(key).max);
}

double p50_us(const Metrics& m, SpanKind kind) {
    for (const StageLatency& l : m.latencies)
        if (l.kind == kind) return l.p50_us;
    return 0;
}

// How many workers keep the GPU fed: a worker delivers one batch per fetch time, the GPU takes one per
// kernel (or per copy, when copies take longer), so fetch / period workers just keep up; one more
// leaves slack for uneven batches. At most twice the workers (or 4 more, from few) in one step: the
// estimate comes from fetch times measured with the current workers, and far from them it is a guess;
// apply the fix and ask again. CPU-bound workers are capped at the cores: more only share them.
int workers_needed(const AdviceFacts& f) {
    const PipelineConfig& c = f.config;
    const double fetch = p50_us(f.metrics, SpanKind::fetch);
    const double period = std::max({c.batch_kernel_us(), p50_us(f.metrics, SpanKind::h2d) * c.chunks, 1.0});
    int needed = static_cast<int>(std::ceil(fetch / period)) + 1;
    const int step = std::min(highest("num_workers"), std::max(2 * c.num_workers, c.num_workers + 4));
    needed = std::clamp(needed, c.num_workers + 1, step);
    if (cpu_bound_workers(c)) needed = std::min(needed, static_cast<int>(f.cores));
    return needed;
}

// The share of the workers idle while the GPU starved, averaged over the starved time.
double idle_workers_while_starved(const AdviceFacts& f) {
    const TimeNs starved = total_length(f.starved);
    if (f.worker_busy.empty() || starved <= 0) return 0;
    double busy = 0;
    for (const IntervalList& worker : f.worker_busy)
        busy += static_cast<double>(total_length(intersection(worker, f.starved)));
    return 1.0 - busy / (static_cast<double>(starved) * static_cast<double>(f.worker_busy.size()));
}

// Where a worker's time per batch goes, from the config's per-sample costs and the measured build time:
// what is left of a build beyond its io and decoding is collating (the conversion into the transfer dtype
// and the writes).
struct BatchBuild {
    double fetch_us = 0, io_us = 0, decode_us = 0, collate_us = 0;
};

BatchBuild batch_build(const AdviceFacts& f) {
    const PipelineConfig& c = f.config;
    BatchBuild b;
    b.fetch_us = p50_us(f.metrics, SpanKind::fetch);
    b.io_us = c.io_us * c.batch_size;
    b.decode_us = c.decode_us * c.batch_size;
    b.collate_us = std::max(0.0, b.fetch_us - b.io_us - b.decode_us);
    return b;
}

// "2.10 ms: 1.60 ms decoding, 500.00 us collating 512.0 KiB into float32", naming only the parts that
// cost something.
std::string build_parts(const AdviceFacts& f, const BatchBuild& b) {
    std::vector<std::string> parts;
    if (b.io_us > 0) parts.push_back(fmt::format("{} waiting on io", format_duration(us_to_ns(b.io_us))));
    if (b.decode_us > 0) parts.push_back(fmt::format("{} decoding", format_duration(us_to_ns(b.decode_us))));
    parts.push_back(fmt::format("{} collating {} into {}", format_duration(us_to_ns(b.collate_us)),
                                format_bytes(static_cast<double>(f.config.batch_bytes())),
                                to_string(f.config.transfer_dtype)));
    return fmt::format("{}: {}", format_duration(us_to_ns(b.fetch_us)), fmt::join(parts, ", "));
}

bool pin_thread_saturated(const AdviceFacts& f) {
    return f.config.pin_memory && f.config.pin_mode == PinMode::thread && f.pin_utilization >= kSaturated;
}

}  // namespace

// Nsight Systems' "GPU Starvation": the compute engine idle while the train loop waits for a batch.
std::optional<Finding> gpu_starvation(const AdviceFacts& f) {
    const Metrics& m = f.metrics;
    if (m.idle.loader < kWorthFixing) return std::nullopt;
    const std::vector<Gap> gaps = gaps_covered_by(f, f.starved);
    if (gaps.empty()) return std::nullopt;
    Finding finding;
    finding.explanation = fmt::format(
        "The GPU's compute engine sat idle waiting for the loader {} of the time, in {}; the longest "
        "lasted {}{}. {} worker{} took {} (median) to build a batch, while the GPU needs one every {}.",
        format_share(m.idle.loader),
        gaps.size() == 1 ? std::string("one gap") : fmt::format("{} gaps", gaps.size()),
        format_duration(gaps.front().explained),
        gaps.front().batch != kNoBatch ? fmt::format(" (batch {})", gaps.front().batch) : std::string(),
        f.config.num_workers == 0 ? std::string("No") : std::to_string(f.config.num_workers),
        f.config.num_workers == 1 ? "" : "s", format_duration(us_to_ns(p50_us(m, SpanKind::fetch))),
        format_duration(us_to_ns(std::max(f.config.batch_kernel_us(), 1.0))));
    finding.cost = m.idle.loader;
    finding.evidence = gap_refs(gaps, f.main_lane);
    const int needed = workers_needed(f);
    if (needed > f.config.num_workers) {
        finding.fix = {{"num_workers", needed}};
        finding.fix_text = fmt::format(
            "Use num_workers={}: {} workers build batches as fast as the GPU takes them{}.", needed, needed,
            cpu_bound_workers(f.config) ? ", up to one per core (their decoding needs a core each)" : "");
    } else if (pin_thread_saturated(f)) {
        finding.fix = {{"pin_mode", "direct"}};
        finding.fix_text =
            "Use pin_mode=direct: workers collate straight into pinned memory, and the cores "
            "no longer spend time on a second copy of every batch.";
    } else {
        // The workers are as many as the cores allow: what they spend their time on decides the fix.
        const BatchBuild build = batch_build(f);
        const bool collating_most = build.collate_us >= build.decode_us;
        if (collating_most && f.config.transfer_dtype != TransferDtype::uint8) {
            finding.fix = {{"transfer_dtype", "uint8"}};
            finding.fix_text = fmt::format(
                "Use transfer_dtype=uint8: a batch's build took {}. With uint8 the workers copy the raw "
                "pixels, a byte each instead of {} converted ones, and the GPU normalises them after the "
                "copy.",
                build_parts(f, build), element_bytes(f.config.transfer_dtype));
        } else {
            finding.fix_text = fmt::format(
                "No knob helps here: {} CPU-bound workers already use all {} cores, and a batch's build took "
                "{}. {}, or run on a host with more cores.",
                f.config.num_workers, f.cores, build_parts(f, build),
                collating_most ? "Send fewer bytes per sample" : "Decode less per sample");
        }
    }
    return finding;
}

// The pin thread busy nearly all the time while the GPU starves: batches queue up before it, so more
// workers or a deeper prefetch cannot help; pinning in the workers can.
std::optional<Finding> pin_bound(const AdviceFacts& f) {
    if (!pin_thread_saturated(f) || f.metrics.idle.loader < kWorthFixing) return std::nullopt;
    const IntervalList pinning_while_starved = intersection(f.starved, f.pin_busy);
    const double cost = f.share(pinning_while_starved);
    if (cost < kWorthFixing) return std::nullopt;
    Finding finding;
    finding.explanation = fmt::format(
        "PyTorch's pin thread copies every batch ({}) once more, into pinned memory, one batch at a time: "
        "it was busy {} of the time, taking {} per batch (median). The GPU waited for data {} of the time, "
        "and the pin thread was pinning during {} of it: batches queued before it while workers had "
        "nothing left to do.",
        format_bytes(static_cast<double>(f.config.batch_bytes())), format_share(f.pin_utilization),
        format_duration(us_to_ns(p50_us(f.metrics, SpanKind::pin))), format_share(f.metrics.idle.loader),
        format_share(cost));
    finding.cost = cost;
    std::vector<SpanRef> evidence =
        longest(lane_spans_where(f, f.pin_lane, [](const Span& s) { return s.kind == SpanKind::pin; }), 3);
    for (const SpanRef& gap : gap_refs(gaps_covered_by(f, pinning_while_starved), f.main_lane, 2))
        evidence.push_back(gap);
    finding.evidence = std::move(evidence);
    finding.fix = {{"pin_mode", "direct"}};
    finding.fix_text =
        "Use pin_mode=direct: workers collate straight into pinned buffers, in parallel, and "
        "the extra copy (and its thread) is gone.";
    return finding;
}

// The GPU starves while most workers have nothing to do: the cap of prefetch_factor * num_workers
// outstanding batches holds them back (a slow batch at the head of the order blocks the slots behind
// it). Not when the batches queue at a saturated pin thread: there a deeper prefetch only queues more.
std::optional<Finding> prefetch_too_shallow(const AdviceFacts& f) {
    const PipelineConfig& c = f.config;
    if (c.num_workers == 0 || f.metrics.idle.loader < kWorthFixing || pin_thread_saturated(f))
        return std::nullopt;
    if (f.metrics.outstanding_max < c.max_outstanding()) return std::nullopt;  // the cap never held
    const double idle_workers = idle_workers_while_starved(f);
    if (idle_workers < 0.5) return std::nullopt;  // most workers busy: they are too few, not held back
    const double cost = f.metrics.idle.loader * idle_workers;
    if (cost < kWorthFixing) return std::nullopt;
    const int prefetch = std::min(highest("prefetch_factor"), c.effective_prefetch_factor() * 2);
    if (prefetch <= c.effective_prefetch_factor()) return std::nullopt;
    Finding finding;
    finding.explanation = fmt::format(
        "The GPU waited for data {} of the time, and meanwhile {} of the workers had nothing to do: all {} "
        "batches that prefetch_factor={} allows were outstanding, held up behind the one the train loop "
        "needed next{}.",
        format_share(f.metrics.idle.loader), format_share(idle_workers), c.max_outstanding(),
        c.effective_prefetch_factor(),
        c.in_order && c.straggler_every > 0 ? " (a straggler at the head of the order)" : "");
    finding.cost = cost;
    finding.evidence = gap_refs(gaps_covered_by(f, f.starved), f.main_lane);
    finding.fix = {{"prefetch_factor", prefetch}};
    finding.fix_text = fmt::format(
        "Use prefetch_factor={}: workers may run further ahead, past a slow batch, instead of idling.",
        prefetch);
    return finding;
}

// CPU-bound workers beyond the host's cores share the cores: each batch takes longer to build, and the
// train loop and the pin thread get less CPU, while the loader delivers no more.
std::optional<Finding> oversubscribed_workers(const AdviceFacts& f) {
    const PipelineConfig& c = f.config;
    const int cores = static_cast<int>(f.cores);
    if (!cpu_bound_workers(c) || c.num_workers <= cores || f.metrics.idle.loader < kWorthFixing)
        return std::nullopt;
    const double extra = static_cast<double>(c.num_workers - cores) / c.num_workers;
    Finding finding;
    finding.explanation = fmt::format(
        "{} workers build batches on the CPU, on {} cores: {} of them can run at a time, so the others only "
        "stretch every batch's build time ({} median) and take CPU from the train loop{}. The GPU still "
        "waited for data {} of the time.",
        c.num_workers, cores, cores, build_parts(f, batch_build(f)),
        c.pin_memory && c.pin_mode == PinMode::thread ? " and the pin thread" : "",
        format_share(f.metrics.idle.loader));
    finding.cost = f.metrics.idle.loader * extra;
    finding.evidence = longest([&] {
        std::vector<Span> fetches;
        for (LaneId w : f.workers) {
            const std::vector<Span> s =
                lane_spans_where(f, w, [](const Span& x) { return x.kind == SpanKind::fetch; });
            fetches.insert(fetches.end(), s.begin(), s.end());
        }
        return fetches;
    }());
    finding.fix = {{"num_workers", cores}};
    finding.fix_text = fmt::format(
        "Use num_workers={}: one worker per core builds batches as fast, each in less time, and leaves the "
        "train loop its share of the CPU.",
        cores);
    return finding;
}

}  // namespace pinscope
