#include "core/analysis/advisor.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "core/analysis/advice_rules.h"
#include "core/config/knobs.h"
#include "core/config/validate.h"
#include "core/units/units.h"

namespace pinscope {
namespace {

// In the order a tie in cost lists them: causes before the symptom they explain.
constexpr Rule kRules[] = {
    pageable_async_memcpy,  sync_memcpy,    low_overlap,       pin_bound,         prefetch_too_shallow,
    oversubscribed_workers, gpu_starvation, prefetch_too_deep, pinned_over_budget};

Verdict verdict_of(double input_share) {
    if (input_share >= kHighlyInputBound) return Verdict::highly;
    if (input_share >= kModeratelyInputBound) return Verdict::moderately;
    return Verdict::not_input_bound;
}

std::string verdict_line(Verdict verdict, const Metrics& m, double input_share) {
    const std::string parts = fmt::format("waiting for the loader {}, staging pageable copies {}",
                                          format_share(m.idle.loader), format_share(m.idle.staging));
    switch (verdict) {
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
    constexpr std::string_view kKeys[] = {"not", "moderately", "highly"};
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
    advice.verdict = verdict_of(advice.input_share);
    advice.verdict_line = verdict_line(advice.verdict, metrics, advice.input_share);
    const AdviceFacts facts = gather_facts(store, metrics, config, ctx);
    if (facts.window.length() <= 0) return advice;
    for (Rule rule : kRules) {
        std::optional<Finding> finding = rule(facts);
        if (!finding) continue;
        check_fix(*finding, config);
        advice.findings.push_back(std::move(*finding));
    }
    std::stable_sort(advice.findings.begin(), advice.findings.end(),
                     [](const Finding& a, const Finding& b) { return a.cost > b.cost; });
    return advice;
}

}  // namespace pinscope
