#pragma once
// The Controls' preview of an edit: what the predictor (core/model/predict.h) says the config that runs
// and the edited draft will measure, so that a slider's effect shows before it is applied.
//
// The predictor needs this host's rates: the median of the measurements kept from the last ten minutes
// (core/model/recent_host_rates.h), read at once where three are kept, else measured once more (a few
// seconds, both cores busy). A measurement runs on a thread of its own, and the owner (AppState) stops the
// live pipeline meanwhile, so the figures are the host's and not what the pipeline leaves of it.
#include <cstddef>
#include <functional>
#include <future>
#include <optional>
#include <vector>

#include "core/analysis/metrics.h"
#include "core/config/knobs.h"
#include "core/config/pipeline_config.h"

namespace pinscope::gui {

class PredictionPreview {
  public:
    struct Model {
        std::function<bool()> ready;      // the predictor can run at once
        std::function<void()> get_ready;  // makes it so; may take a while, so it runs on its own thread
        // Whether get_ready() would measure the host; where it would not (the figures are at hand), it
        // runs at once, and nothing has to stop. Empty: it would.
        std::function<bool()> would_measure;
        // What a config measures with `others` cores' worth of the machine busy with other work (the
        // app's frames, other programs), nullopt where the model does not apply; about 0.1 ms once ready.
        std::function<std::optional<Metrics>(const PipelineConfig&, double others)> predict;
    };
    // core/model's predictor on this host's rates, for the steady state a live run shows.
    static Model pipeline_model();

    explicit PredictionPreview(Model model = pipeline_model());
    ~PredictionPreview();  // waits for a measurement under way
    PredictionPreview(const PredictionPreview&) = delete;
    PredictionPreview& operator=(const PredictionPreview&) = delete;

    // Readies the predictor unless it is ready or on its way: at once where that measures nothing, else
    // on a thread, and then true: the owner should keep the host quiet until preparing() turns false.
    bool prepare();
    bool preparing();
    bool ready() const { return model_.ready(); }

    // The cores' worth of this machine that other work takes now (core/pipeline/other_cpu_load.h): the
    // predictions leave it to that work. Held to a tenth of a core, so that predictions are asked again
    // only when it moves by that much.
    void set_others(double cores);
    double others() const { return others_; }

    // What `config` will measure: nullopt until ready, and where the model does not apply (a real GPU).
    // The last few configs asked for are kept, so asking again in every frame costs nothing.
    std::optional<Metrics> predicted(const PipelineConfig& config);

    // The predicted samples/s of `base` with `knob` at up to kCurvePoints values across its slider and
    // at its value now: what hovering a slider shows. NaN where the config is not valid. nullptr until
    // ready, for knobs the model leaves out (seed, lengths, ...) and on a real GPU; the last curve asked
    // for is kept.
    struct Curve {
        const Knob* knob = nullptr;
        std::vector<double> values, samples_per_s;
        size_t nearest = 0;  // the value nearest base's
    };
    static constexpr size_t kCurvePoints = 17;
    const Curve* curve(const PipelineConfig& base, const Knob& knob);

  private:
    struct Kept {
        PipelineConfig config;
        std::optional<Metrics> metrics;
    };
    static constexpr size_t kKept = 8;

    Model model_;
    std::future<void> getting_ready_;
    double others_ = 0;
    std::vector<Kept> kept_;  // newest last
    std::optional<PipelineConfig> curve_base_;
    Curve curve_;
};

}  // namespace pinscope::gui
