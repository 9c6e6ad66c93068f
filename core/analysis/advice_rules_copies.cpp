// The rules about H2D copies: where they come from (pageable memory), whether they hold the host
// (synchronous copies), and whether they hide under kernels (overlap).
#include <fmt/format.h>

#include "core/analysis/advice_rules.h"
#include "core/units/units.h"

namespace pinscope {
namespace {

// "93% of the link's pinned H2D peak 53.4 GB/s", or that the peak is not known.
std::string link_share_text(double gbps, double peak_gbps) {
    if (!(peak_gbps > 0)) return link_peak_label(peak_gbps);
    return fmt::format("{} of the link's {}", format_share(gbps / peak_gbps), link_peak_label(peak_gbps));
}

}  // namespace
}  // namespace pinscope

namespace pinscope {

// Nsight Systems' "CUDA Async Memcpy with Pageable Memory": the driver stages a pageable copy through a
// bounce buffer, at a fraction of the link's speed, and the host thread is held for all of it.
std::optional<Finding> pageable_async_memcpy(const AdviceFacts& f) {
    const Metrics& m = f.metrics;
    if (m.pageable_h2d_fraction <= 0 || m.idle.staging < kWorthFixing) return std::nullopt;
    Finding finding;
    finding.explanation = fmt::format(
        "{} of the H2D bytes came from pageable (not pinned) memory. The driver cannot copy pageable memory "
        "directly: it stages each copy through a small pinned bounce buffer, which ran at {} here, and the "
        "train loop is held until the copy is staged{}. The GPU sat idle {} of the time while copies "
        "were staged.",
        format_share(m.pageable_h2d_fraction), format_gbps(m.h2d_gbps),
        f.config.non_blocking ? ", even with non_blocking=true" : "", format_share(m.idle.staging));
    finding.cost = m.idle.staging;
    finding.evidence = longest(lane_spans_where(f, f.main_lane, [](const Span& s) {
        return s.kind == SpanKind::stage && s.memory == HostMemory::pageable;
    }));
    finding.fix = {{"pin_memory", true}};
    if (!f.config.non_blocking) finding.fix["non_blocking"] = true;
    finding.fix_text =
        "Set pin_memory=true: batches are copied into page-locked memory, so the copy engine reads them "
        "at the link's speed and the train loop goes on while they copy.";
    return finding;
}

// Nsight Systems' "CUDA Synchronous Memcpy": a blocking copy from pinned memory (non_blocking=false)
// keeps the host from issuing the next work until the copy is done.
std::optional<Finding> sync_memcpy(const AdviceFacts& f) {
    if (f.config.non_blocking) return std::nullopt;
    const std::vector<Span> copies = lane_spans_where(f, f.main_lane, [](const Span& s) {
        return s.kind == SpanKind::sync && s.bytes > 0 && s.memory == HostMemory::pinned;
    });
    const double cost = f.share(intersection(intervals_of(copies, f.window), f.idle));
    if (cost < kWorthFixing) return std::nullopt;
    Finding finding;
    finding.explanation = fmt::format(
        "With non_blocking=false every copy makes the train loop wait until the GPU has finished it: {} "
        "copies held the loop, and the GPU's compute engine sat idle {} of the time meanwhile, because "
        "the next kernel could not be issued.",
        copies.size(), format_share(cost));
    finding.cost = cost;
    finding.evidence = longest(copies);
    finding.fix = {{"non_blocking", true}};
    finding.fix_text =
        "Set non_blocking=true: a copy from pinned memory then returns at once and the loop issues the "
        "kernel behind it on the same stream.";
    return finding;
}

// The link itself is the bottleneck: the GPU idles while copies cross it, copy after copy. Knobs of
// the loader cannot help here; fewer bytes per sample can, and more streams only where copies and
// kernels do not overlap yet. It fires where the GPU waited for copies (idle.copies), and also where
// a copy engine was busy most of the time and the GPU idled under its copies while the train loop
// staged them (a pageable run of a transfer-bound load is input-bound and transfer-bound at once: the
// verdict names the larger, and this finding the other).
std::optional<Finding> link_bound(const AdviceFacts& f) {
    const Metrics& m = f.metrics;
    const PipelineConfig& c = f.config;
    const double cost = f.share(f.idle_under_copies);
    const bool link_busy = std::max(m.h2d_busy, m.d2h_busy) >= kLinkBusy;
    if (m.idle.copies < kWorthFixing && !(link_busy && cost >= kWorthFixing)) return std::nullopt;
    Finding finding;
    const bool d2h_heavier = m.d2h_busy > m.h2d_busy;
    finding.title = d2h_heavier ? "The GPU waits for copies: the D2H link is the bottleneck"
                                : "The GPU waits for copies: the H2D link is the bottleneck";
    finding.explanation = fmt::format(
        "The compute engine sat idle {} of the time while a copy was still running. The H2D engine was busy "
        "{} of the time at {} while copying ({}){}; kernels ran {} of the time, with {} of their time "
        "under copies.",
        format_share(cost), format_share(m.h2d_busy), format_gbps(m.h2d_gbps),
        link_share_text(m.h2d_gbps, f.link_peak_gbps),
        m.d2h_busy >= kWorthFixing
            ? fmt::format(", the D2H engine {} at {}", format_share(m.d2h_busy), format_gbps(m.d2h_gbps))
            : std::string(),
        format_share(m.gpu_busy), format_share(m.overlap));
    finding.cost = cost;
    // The stretches of the H2D lane (D2H where that is the busier) where the GPU waited on its copies.
    LaneId lane = f.h2d_lanes.empty() ? f.kernel_lane : f.h2d_lanes.front();
    if (d2h_heavier && f.d2h_lane != kNoLane) lane = f.d2h_lane;
    finding.evidence = gap_refs(gaps_covered_by(f, f.idle_under_copies), lane);
    const bool overlap_missing = c.streams == 1 && m.overlap < 0.5;
    if (!d2h_heavier && c.transfer_dtype != TransferDtype::uint8 && !c.data_on_gpu) {
        finding.fix = {{"transfer_dtype", "uint8"}};
        finding.fix_text = fmt::format(
            "Use transfer_dtype=uint8: send the raw pixels ({} of {}'s bytes) and normalise them on the GPU "
            "after the copy, as NVIDIA DALI and FFCV do; the normalize kernel costs the GPU far less than "
            "the bytes cost the link.",
            c.transfer_dtype == TransferDtype::float32 ? "a quarter" : "half", to_string(c.transfer_dtype));
    } else if (overlap_missing) {
        finding.fix = {{"streams", 2}};
        finding.fix_text =
            "Use streams=2: copies then run beside the previous batch's kernel instead of before it.";
    } else {
        finding.fix_text = fmt::format(
            "No knob helps here: {} already. Send fewer bytes per sample (a smaller crop or result), or "
            "use a faster link.",
            d2h_heavier ? "the results fill the D2H link"
                        : "the samples cross the link as uint8 and copies overlap kernels where they can");
    }
    return finding;
}

// Copy time that no kernel hides, where a knob is what keeps copies and kernels apart: one stream
// serialises them; blocking copies keep the host from issuing the kernel beside them. (Pageable copies
// are the pageable rule's; copies that wait for a slow loader cannot overlap whatever the knobs.)
std::optional<Finding> low_overlap(const AdviceFacts& f) {
    const PipelineConfig& c = f.config;
    const bool one_stream = c.streams == 1;
    const bool blocking = c.pin_memory && !c.non_blocking;
    if (!c.pin_memory || (!one_stream && !blocking)) return std::nullopt;
    std::vector<Span> copies;
    for (LaneId lane : f.h2d_lanes) {
        const std::vector<Span> spans =
            lane_spans_where(f, lane, [](const Span& s) { return s.kind == SpanKind::h2d; });
        copies.insert(copies.end(), spans.begin(), spans.end());
    }
    const IntervalList exposed = difference(intervals_of(copies, f.window), f.kernels);
    const double cost = f.share(exposed);
    if (cost < kWorthFixing) return std::nullopt;
    Finding finding;
    finding.explanation = fmt::format(
        "Only {} of the kernel time had a copy running beside it, and copies ran alone, with the compute "
        "engine idle, {} of the time. {}",
        format_share(f.metrics.overlap), format_share(cost),
        one_stream ? "On one stream a batch's copy waits for the previous batch's kernel to finish."
                   : "Blocking copies (non_blocking=false) keep the loop from issuing a kernel while a copy "
                     "runs.");
    finding.cost = cost;
    // The copies that ran alone the longest.
    std::vector<Span> alone;
    for (const Span& s : copies)
        if (total_length(intersection(IntervalList{{s.start, s.end}}, f.kernels)) == 0) alone.push_back(s);
    finding.evidence = longest(alone.empty() ? copies : alone);
    if (one_stream) finding.fix["streams"] = 2;
    if (blocking) finding.fix["non_blocking"] = true;
    finding.fix_text = one_stream ? "Use streams=2: the next batch copies on one stream while the previous "
                                    "batch's kernel runs on the other."
                                  : "Set non_blocking=true, so the loop issues kernels while copies run.";
    return finding;
}

}  // namespace pinscope
