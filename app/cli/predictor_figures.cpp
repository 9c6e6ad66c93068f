#include "app/cli/predictor_figures.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/config/knobs.h"

namespace pinscope {

double relative_error(double value, double reference) {
    if (reference > 0) return value / reference - 1;
    return value > 0 ? INFINITY : 0;
}

std::string error_text(double error) {
    return std::isfinite(error) ? fmt::format("{:+.1f}%", 100 * error) : "no batch";
}

double share_within(const std::vector<double>& values, double bound) {
    const auto n =
        std::count_if(values.begin(), values.end(), [&](double v) { return std::abs(v) <= bound; });
    return values.empty() ? 0 : static_cast<double>(n) / static_cast<double>(values.size());
}

double percentile_abs(std::vector<double> values, double p) {
    if (values.empty()) return 0;
    for (double& v : values) v = std::abs(v);
    std::sort(values.begin(), values.end());
    const size_t rank = static_cast<size_t>(std::ceil(p / 100 * static_cast<double>(values.size())));
    return values[std::max<size_t>(rank, 1) - 1];
}

std::string knobs_of(const PipelineConfig& config) {
    PipelineConfig defaults;
    defaults.device = config.device;
    defaults.seconds = config.seconds;
    std::string text;
    for (const KnobDifference& d : knob_differences(defaults, config))
        text += fmt::format("{}{}={}", text.empty() ? "" : " ", d.knob->key, d.b);
    return text.empty() ? "(the defaults)" : text;
}

}  // namespace pinscope
