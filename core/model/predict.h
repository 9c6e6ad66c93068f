#pragma once
// The predictor: what a config will measure on the simulated GPU, from the pipeline model
// (pipeline_model.h) instead of a run. It fills the Metrics a measured run reports (samples/s, stall and
// the other causes of GPU idle time, overlap, GPU and copy-engine busy shares, H2D bandwidth), over the
// window a run measures (from the first batch's first copy to the end), in real units. Stage latencies
// and counter levels other than outstanding batches are left empty.
#include <optional>

#include "core/analysis/metrics.h"
#include "core/config/pipeline_config.h"
#include "core/device/calibration.h"
#include "core/model/host_rates.h"

namespace pinscope {

Metrics predict(const PipelineConfig& config, const Calibration& calibration, const HostRates& host);
// With the config's calibration (the built-in one, or its file, with its copy_engines) and this host's
// measured rates; for dataset=folder:PATH, a sample's cost measured on the folder's files
// (folder_sample_cost.h). Throws CalibrationError for a calibration file that cannot be read.
Metrics predict(const PipelineConfig& config);

// predict(config) where the model applies: nullopt for a config on a real GPU (device cuda), a naive
// benchmark (one cold copy, no steady state), or with a calibration file that cannot be read (the run
// itself says what is wrong with the file).
std::optional<Metrics> predict_if_modelled(const PipelineConfig& config);
// The same on `host`'s rates instead of this_host_rates() (the app's preview: what its frames leave).
std::optional<Metrics> predict_if_modelled(const PipelineConfig& config, const HostRates& host);
// Its samples/s: what sweeps show before each run.
std::optional<double> predicted_samples_per_s(const PipelineConfig& config);

// The calibration a simulated run of `config` uses (device_factory.cpp does the same).
Calibration calibration_for(const PipelineConfig& config);

}  // namespace pinscope
