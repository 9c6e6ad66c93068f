#include "app/cli/advice_report.h"

#include <cstring>
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

// Python's spelling of booleans in a knob=value text: pin_memory=True.
std::string pythonic(std::string text) {
    for (const auto& [from, to] : {std::pair{"=true", "=True"}, std::pair{"=false", "=False"}})
        for (size_t at; (at = text.find(from)) != std::string::npos;) text.replace(at, std::strlen(from), to);
    return text;
}

// transfer_dtype=... as a training script changes it.
std::string dtype_in_pytorch(const std::string& dtype) {
    if (dtype == "uint8")
        return "keep samples uint8 in the dataset (transforms.PILToTensor(), no ToTensor or Normalize) and "
               "normalise on the GPU: x = batch.to(device, non_blocking=True).float().div_(255).sub_(mean)"
               ".div_(std)";
    if (dtype == "float16" || dtype == "bfloat16")
        return fmt::format("end the dataset's transform with .to(torch.{}) after Normalize", dtype);
    return "keep ToTensor and Normalize in the dataset (float32)";
}

// A fix as the DataLoader arguments (and the .to() call) a user changes; knobs PyTorch has no argument for
// (streams, chunks, pin_mode) are named as pinscope's.
std::string dataloader_fix(const nlohmann::json& fix) {
    std::string loader, other;
    for (const auto& [key, value] : fix.items()) {
        const std::string v =
            pythonic("=" + (value.is_string() ? value.get<std::string>() : value.dump())).substr(1);
        if (key == "num_workers" || key == "pin_memory" || key == "prefetch_factor" || key == "batch_size" ||
            key == "persistent_workers" || key == "in_order")
            loader += fmt::format("{}{}={}", loader.empty() ? "" : ", ", key, v);
        else if (key == "non_blocking")
            other += fmt::format("{}batch.to(device, non_blocking={})", other.empty() ? "" : "; ", v);
        else if (key == "transfer_dtype")
            other += fmt::format("{}{}", other.empty() ? "" : "; ", dtype_in_pytorch(v));
        else
            other += fmt::format("{}{}={} (pinscope's knob; no DataLoader argument)",
                                 other.empty() ? "" : "; ", key, v);
    }
    if (!loader.empty()) loader = "DataLoader(..., " + loader + ")";
    return loader + (!loader.empty() && !other.empty() ? "; " : "") + other;
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

void print_advice(std::ostream& out, const Advice& advice, const TraceStore& store, FixWords words) {
    const auto said = [&](const std::string& text) {
        return words == FixWords::options ? cli_words(text) : pythonic(text);
    };
    fmt::print(out, "\nadvice\n  {}\n", advice.verdict_line);
    if (advice.findings.empty()) {
        fmt::print(out, "  No findings: nothing in this trace costs 5% of the time or more.\n");
        return;
    }
    const TimeNs origin = store.first_time();
    for (size_t i = 0; i < advice.findings.size(); ++i) {
        const Finding& f = advice.findings[i];
        fmt::print(out, "\n  {}. {} [{}] (costs {})\n", i + 1, f.title, f.rule_id, format_share(f.cost));
        fmt::print(out, "     {}\n", said(f.explanation));
        for (const SpanRef& ref : f.evidence) fmt::print(out, "     - {}\n", where(ref, store, origin));
        if (!f.fix.empty())
            fmt::print(out, "     fix: {}\n",
                       words == FixWords::options ? cli_words(fix_knobs(f.fix)) : dataloader_fix(f.fix));
        fmt::print(out, "     {} ({} should {})\n", said(f.fix_text), f.metric, direction_key(f.should));
    }
}

}  // namespace pinscope
