#include "app/gui/model/prediction_preview.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "core/config/validate.h"
#include "core/model/host_rates.h"
#include "core/model/predict.h"

namespace pinscope::gui {

namespace {

// A live run is unbounded and its tiles show the newest second: the prediction is of a long run, whose
// start-up weighs nothing.
constexpr double kSteadySeconds = 60;

}  // namespace

PredictionPreview::Model PredictionPreview::pipeline_model() {
    return {.ready = [] { return this_host_rates_measured(); },
            .get_ready = [] { this_host_rates(); },
            .would_measure = [] { return this_host_rates_would_measure(); },
            .predict =
                [](const PipelineConfig& config, double others) {
                    PipelineConfig steady = config;
                    if (steady.seconds <= 0 && steady.batches <= 0) steady.seconds = kSteadySeconds;
                    return predict_if_modelled(steady, this_host_rates().leaving(others));
                }};
}

PredictionPreview::PredictionPreview(Model model) : model_(std::move(model)) {}

PredictionPreview::~PredictionPreview() {
    if (getting_ready_.valid()) getting_ready_.wait();
}

bool PredictionPreview::prepare() {
    if (model_.ready() || getting_ready_.valid()) return false;
    if (model_.would_measure && !model_.would_measure()) {  // kept figures: a file read, milliseconds
        model_.get_ready();
        return false;
    }
    getting_ready_ = std::async(std::launch::async, model_.get_ready);
    return true;
}

bool PredictionPreview::preparing() {
    if (!getting_ready_.valid()) return false;
    if (getting_ready_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return true;
    getting_ready_.get();
    return false;
}

void PredictionPreview::set_others(double cores) {
    const double held = std::round(std::max(0.0, cores) * 10) / 10;
    if (held == others_) return;
    others_ = held;
    kept_.clear();
    curve_base_.reset();
}

std::optional<Metrics> PredictionPreview::predicted(const PipelineConfig& config) {
    if (!model_.ready()) return std::nullopt;
    auto kept = std::find_if(kept_.begin(), kept_.end(), [&](const Kept& k) { return k.config == config; });
    if (kept != kept_.end()) {
        std::rotate(kept, kept + 1, kept_.end());  // now the newest
        return kept_.back().metrics;
    }
    if (kept_.size() == kKept) kept_.erase(kept_.begin());
    kept_.push_back({config, model_.predict(config, others_)});
    return kept_.back().metrics;
}

namespace {

// Up to `points` values across a knob's slider: every integer where they fit, else evenly spaced (in
// log space for a logarithmic slider).
std::vector<double> slider_values(const Knob& knob, size_t points) {
    const double low = knob.slider_low(), high = knob.slider_high();
    std::vector<double> values;
    if (!std::isfinite(low) || !std::isfinite(high) || high <= low) return values;
    if (knob.type == KnobType::integer && high - low + 1 <= static_cast<double>(points)) {
        for (double v = low; v <= high; ++v) values.push_back(v);
        return values;
    }
    const bool log_scale = knob.logarithmic && low > 0;
    for (size_t i = 0; i < points; ++i) {
        const double f = static_cast<double>(i) / static_cast<double>(points - 1);
        double v = log_scale ? low * std::pow(high / low, f) : low + f * (high - low);
        if (knob.type == KnobType::integer) v = std::round(v);
        if (values.empty() || v != values.back()) values.push_back(v);
    }
    return values;
}

}  // namespace

const PredictionPreview::Curve* PredictionPreview::curve(const PipelineConfig& base, const Knob& knob) {
    // What the model runs on: the loader's, the workload's and the GPU's numbers, but for ones it leaves out.
    const bool modelled = knob.has_range() && knob.group != KnobGroup::length && knob.key != "seed" &&
                          knob.key != "fail_at_sample" && knob.key != "pinned_budget_mb";
    if (!model_.ready() || !modelled || base.device == DeviceChoice::cuda) return nullptr;
    if (curve_base_ && *curve_base_ == base && curve_.knob == &knob) return &curve_;
    curve_ = Curve{};  // field by field: a designated initializer leaving some out warns under -Wextra
    curve_.knob = &knob;
    curve_.values = slider_values(knob, kCurvePoints);
    curve_base_ = base;
    // The value now is a point of the curve, so that its mark sits on what the slider shows.
    const double at = knob.get(base).is_number() ? knob.get(base).get<double>() : knob.unset_means;
    std::vector<double>& values = curve_.values;
    if (!values.empty() && at >= values.front() && at <= values.back() &&
        !std::binary_search(values.begin(), values.end(), at))
        values.insert(std::upper_bound(values.begin(), values.end(), at), at);
    for (size_t i = 0; i < curve_.values.size(); ++i) {
        PipelineConfig config = base;
        const double v = curve_.values[i];
        knob.set(config, knob.type == KnobType::integer ? nlohmann::json(static_cast<int64_t>(v))
                                                        : nlohmann::json(v));
        std::optional<Metrics> m;
        if (validate(config).ok()) m = model_.predict(config, others_);
        curve_.samples_per_s.push_back(m ? m->samples_per_s : std::nan(""));
        if (std::abs(v - at) < std::abs(curve_.values[curve_.nearest] - at)) curve_.nearest = i;
    }
    return &curve_;
}

}  // namespace pinscope::gui
