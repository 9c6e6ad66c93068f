#include "app/gui/model/prediction_preview.h"

#include <algorithm>
#include <chrono>

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
            .predict =
                [](const PipelineConfig& config) {
                    PipelineConfig steady = config;
                    if (steady.seconds <= 0 && steady.batches <= 0) steady.seconds = kSteadySeconds;
                    return predict_if_modelled(steady);
                }};
}

PredictionPreview::PredictionPreview(Model model) : model_(std::move(model)) {}

PredictionPreview::~PredictionPreview() {
    if (getting_ready_.valid()) getting_ready_.wait();
}

bool PredictionPreview::prepare() {
    if (model_.ready() || getting_ready_.valid()) return false;
    getting_ready_ = std::async(std::launch::async, model_.get_ready);
    return true;
}

bool PredictionPreview::preparing() {
    if (!getting_ready_.valid()) return false;
    if (getting_ready_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return true;
    getting_ready_.get();
    return false;
}

std::optional<Metrics> PredictionPreview::predicted(const PipelineConfig& config) {
    if (!model_.ready()) return std::nullopt;
    auto kept = std::find_if(kept_.begin(), kept_.end(), [&](const Kept& k) { return k.config == config; });
    if (kept != kept_.end()) {
        std::rotate(kept, kept + 1, kept_.end());  // now the newest
        return kept_.back().metrics;
    }
    if (kept_.size() == kKept) kept_.erase(kept_.begin());
    kept_.push_back({config, model_.predict(config)});
    return kept_.back().metrics;
}

}  // namespace pinscope::gui
