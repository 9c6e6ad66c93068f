#include "app/cli/advice_report.h"

#include <thread>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "app/cli/cli_words.h"
#include "core/device/device.h"
#include "core/units/units.h"

namespace pinscope {
namespace {

std::string fix_knobs(const nlohmann::json& fix) {
    std::string text;
    for (const auto& [key, value] : fix.items())
        text += fmt::format("{}{}={}", text.empty() ? "" : " ", key,
                            value.is_string() ? value.get<std::string>() : value.dump());
    return text;
}

std::string where(const SpanRef& ref, const TraceStore& store, TimeNs origin) {
    const LaneInfo* lane = ref.lane == kNoLane ? nullptr : store.lane_info(ref.lane);
    std::string text = fmt::format("{} at {}", lane ? lane->name : std::string("trace"),
                                   format_duration(ref.start - origin));
    if (ref.end > ref.start) text += fmt::format(" for {}", format_duration(ref.end - ref.start));
    if (ref.batch != kNoBatch) text += fmt::format(" (batch {})", ref.batch);
    return text;
}

}  // namespace

AdviceContext cli_advice_context(const PipelineConfig& config, MetricsWindow window) {
    AdviceContext ctx;
    ctx.window = window;
    ctx.cores = std::max(1u, std::thread::hardware_concurrency());
    ctx.pinned_budget_bytes =
        config.pinned_budget_mb > 0 ? config.pinned_budget_mb << 20 : Device::default_pinned_budget();
    return ctx;
}

void print_advice(std::ostream& out, const Advice& advice, const TraceStore& store) {
    fmt::print(out, "\nadvice\n  {}\n", advice.verdict_line);
    if (advice.findings.empty()) {
        fmt::print(out, "  No findings: nothing in this trace costs 5% of the time or more.\n");
        return;
    }
    const TimeNs origin = store.first_time();
    for (size_t i = 0; i < advice.findings.size(); ++i) {
        const Finding& f = advice.findings[i];
        fmt::print(out, "\n  {}. {} [{}] (costs {})\n", i + 1, f.title, f.rule_id, format_share(f.cost));
        fmt::print(out, "     {}\n", cli_words(f.explanation));
        for (const SpanRef& ref : f.evidence) fmt::print(out, "     - {}\n", where(ref, store, origin));
        if (!f.fix.empty()) fmt::print(out, "     fix: {}\n", cli_words(fix_knobs(f.fix)));
        fmt::print(out, "     {} ({} should {})\n", cli_words(f.fix_text), f.metric, direction_key(f.should));
    }
}

}  // namespace pinscope
