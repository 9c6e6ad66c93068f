#include "core/analysis/profiler_steps.h"

#include <algorithm>
#include <charconv>
#include <string_view>

#include "core/analysis/intervals.h"

namespace pinscope {

namespace {

constexpr std::string_view kStepPrefix = "ProfilerStep#";

bool is_getting_data(SpanKind kind) {
    return kind == SpanKind::wait || kind == SpanKind::fetch || kind == SpanKind::pin;
}

}  // namespace

ProfilerSteps profiler_steps(const TraceStore& store) {
    ProfilerSteps result;
    for (const LaneInfo& lane : store.lanes()) {
        if (lane.role != LaneRole::main) continue;
        const std::span<const Span> spans = store.spans(lane.id);
        IntervalList getting_data;
        for (const Span& span : spans)
            if (is_getting_data(span.kind)) getting_data.push_back({span.start, span.end});
        if (!getting_data.empty()) {
            TimeNs from = getting_data.front().start, to = getting_data.front().end;
            for (const Interval& i : getting_data) from = std::min(from, i.start), to = std::max(to, i.end);
            getting_data = normalized(std::move(getting_data), {from, to});
        }
        for (const Span& span : spans) {
            const std::string_view name = store.name(span.name);
            if (name.substr(0, kStepPrefix.size()) != kStepPrefix) continue;
            ProfilerStep step;
            const std::string_view digits = name.substr(kStepPrefix.size());
            std::from_chars(digits.data(), digits.data() + digits.size(), step.number);
            step.start = span.start;
            step.end = span.end;
            step.data_wait = total_length(intersection(getting_data, IntervalList{{span.start, span.end}}));
            result.steps.push_back(step);
        }
    }
    std::sort(result.steps.begin(), result.steps.end(),
              [](const ProfilerStep& a, const ProfilerStep& b) { return a.start < b.start; });
    if (result.steps.empty()) return result;
    TimeNs total = 0, waiting = 0;
    for (const ProfilerStep& step : result.steps) {
        total += step.end - step.start;
        waiting += step.data_wait;
    }
    const TimeNs span = result.steps.back().end - result.steps.front().start;
    result.steps_per_s = span > 0 ? static_cast<double>(result.steps.size()) / ns_to_s(span) : 0;
    result.mean_step_ms = static_cast<double>(total) / static_cast<double>(result.steps.size()) / 1e6;
    result.data_wait_share = total > 0 ? static_cast<double>(waiting) / static_cast<double>(total) : 0;
    return result;
}

}  // namespace pinscope
