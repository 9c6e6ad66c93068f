#include "core/analysis/advisor.h"

#include <algorithm>
#include <stdexcept>
#include <string_view>

#include <fmt/format.h>

#include "core/analysis/advice_rules.h"
#include "core/config/knobs.h"
#include "core/config/validate.h"
#include "core/units/units.h"

namespace pinscope {
namespace {

// The rules, one row each: what a finding of the rule is called, the metric its fix should move and
// which way; the function decides whether it fires and fills in the rest (why, cost, evidence, fix).
// In the order a tie in cost lists them: causes before the symptom they explain.
struct RuleRow {
    std::string_view id;  // "pageable-async-memcpy": names it in JSON and the docs, as Nsight names its rules
    std::string_view title;   // the finding's one line, unless the rule writes its own
    std::string_view metric;  // a key of `run --json`
    Direction should;
    Rule fires;
};

constexpr RuleRow kRules[] = {
    {"pageable-async-memcpy", "Copies from pageable memory hold the train loop", "idle.pageable_staging",
     Direction::fall, pageable_async_memcpy},
    {"sync-memcpy", "Synchronous copies hold the host", "idle.copies", Direction::fall, sync_memcpy},
    {"low-overlap", "Copies do not overlap kernels", "overlap", Direction::rise, low_overlap},
    {"link-bound", "The GPU waits for copies on the link", "samples_per_s", Direction::rise, link_bound},
    {"pin-bound", "The pin thread is the bottleneck", "stall", Direction::fall, pin_bound},
    {"prefetch-too-shallow", "Prefetch too shallow: workers idle while the GPU waits", "stall",
     Direction::fall, prefetch_too_shallow},
    {"oversubscribed-workers", "More CPU-bound workers than cores", "latency.fetch.p50_us", Direction::fall,
     oversubscribed_workers},
    {"gpu-starvation", "The GPU starves waiting for data", "stall", Direction::fall, gpu_starvation},
    {"prefetch-too-deep", "Prefetch too deep: pinned memory held for nothing", "pinned_bytes_max",
     Direction::fall, prefetch_too_deep},
    {"pinned-over-budget", "Pinned memory over budget", "pinned_bytes_max", Direction::fall,
     pinned_over_budget},
};

Verdict verdict_of(double input_share, double transfer_share) {
    if (transfer_share >= kModeratelyInputBound && transfer_share > input_share)
        return Verdict::transfer_bound;
    if (input_share >= kHighlyInputBound) return Verdict::highly;
    if (input_share >= kModeratelyInputBound) return Verdict::moderately;
    return Verdict::not_input_bound;
}

std::string verdict_line(Verdict verdict, const Metrics& m, double input_share, double link_peak_gbps) {
    const std::string parts = fmt::format("waiting for the loader {}, staging pageable copies {}",
                                          format_share(m.idle.loader), format_share(m.idle.staging));
    switch (verdict) {
        case Verdict::transfer_bound:
            return fmt::format(
                "TRANSFER-bound: the GPU waited for copies on the link {} of the time (H2D busy {} at {} "
                "while "
                "copying, {}{}; {}).",
                format_share(m.idle.copies), format_share(m.h2d_busy), format_gbps(m.h2d_gbps),
                link_peak_gbps > 0 ? fmt::format("{} of the {}", format_share(m.h2d_gbps / link_peak_gbps),
                                                 link_peak_label(link_peak_gbps))
                                   : link_peak_label(link_peak_gbps),
                m.d2h_busy >= kWorthFixing
                    ? fmt::format("; D2H busy {} at {}", format_share(m.d2h_busy), format_gbps(m.d2h_gbps))
                    : std::string(),
                parts);
        case Verdict::highly:
            return fmt::format("HIGHLY input-bound: the GPU waited for data {} of the time ({}).",
                               format_share(input_share), parts);
        case Verdict::moderately:
            return fmt::format("MODERATELY input-bound: the GPU waited for data {} of the time ({}).",
                               format_share(input_share), parts);
        default:
            return fmt::format("Not input-bound: the GPU waited for data only {} of the time ({}).",
                               format_share(input_share), parts);
    }
}

// A fix that the validator refuses is dropped rather than offered: one click must give a config that
// runs.
void check_fix(Finding& finding, const PipelineConfig& config) {
    if (finding.fix.empty()) return;
    try {
        if (validate(with_fix(config, finding.fix)).ok()) return;
    } catch (const std::exception&) {
    }
    finding.fix = nlohmann::json::object();
    finding.fix_text += " (No single knob change applies here: the config it gives does not validate.)";
}

}  // namespace

std::string_view verdict_key(Verdict verdict) {
    constexpr std::string_view kKeys[] = {"not", "moderately", "highly", "transfer"};
    return kKeys[static_cast<size_t>(verdict)];
}

std::string_view direction_key(Direction direction) {
    return direction == Direction::fall ? "fall" : "rise";
}

PipelineConfig with_fix(const PipelineConfig& config, const nlohmann::json& fix) {
    PipelineConfig fixed = config;
    for (const auto& [key, value] : fix.items()) {
        const Knob* knob = find_knob(key);
        if (!knob) throw std::invalid_argument(fmt::format("a fix names no knob: {}", key));
        knob->set(fixed, value);
    }
    return fixed;
}

Advice advise(const TraceStore& store, const Metrics& metrics, const PipelineConfig& config,
              const AdviceContext& ctx) {
    Advice advice;
    advice.input_share = metrics.idle.loader + metrics.idle.staging;
    advice.transfer_share = metrics.idle.copies;
    advice.verdict = verdict_of(advice.input_share, advice.transfer_share);
    advice.verdict_line = verdict_line(advice.verdict, metrics, advice.input_share, ctx.link_peak_gbps);
    const AdviceFacts facts = gather_facts(store, metrics, config, ctx);
    if (facts.window.length() <= 0) return advice;
    for (const RuleRow& rule : kRules) {
        std::optional<Finding> finding = rule.fires(facts);
        if (!finding) continue;
        finding->rule_id = rule.id;
        if (finding->title.empty()) finding->title = rule.title;
        finding->metric = rule.metric;
        finding->should = rule.should;
        check_fix(*finding, config);
        advice.findings.push_back(std::move(*finding));
    }
    std::stable_sort(advice.findings.begin(), advice.findings.end(),
                     [](const Finding& a, const Finding& b) { return a.cost > b.cost; });
    return advice;
}

}  // namespace pinscope
