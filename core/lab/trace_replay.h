#pragma once
// A pinscope config that models an imported PyTorch profiler trace, so that the lab can replay the run
// and its sliders move a model of the user's own loader: batch size and DataLoader settings from the
// loader's side files, per-sample CPU from the workers' fetches, bytes per batch and pinning from the
// copies, non_blocking from whether the copy calls returned before their copies ended, kernel time and
// the train loop's own host time per step from the profiler's steps. Each knob says what it came from;
// what the trace cannot tell keeps pinscope's default and says so.
#include <string>
#include <vector>

#include "core/config/pipeline_config.h"
#include "core/io/capture.h"

namespace pinscope {

struct InferredKnob {
    std::string key, value;  // as the command line spells them
    std::string from;        // what in the trace gave it
};

struct TraceModel {
    PipelineConfig config;
    std::vector<InferredKnob> knobs;
    double steps_per_s = 0;  // what the trace measured over its steps: what a replay is compared with
    int steps = 0;
};

// Throws std::invalid_argument when the capture holds no steps or batches to model (not an import).
TraceModel model_of_trace(const Capture& capture);

}  // namespace pinscope
