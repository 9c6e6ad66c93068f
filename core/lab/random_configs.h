#pragma once
// Random pipeline configs for judging the predictor on loads nobody tuned it for (issue 24): every knob
// that shapes the pipeline drawn within its range, weighted to the regions users run (most runs pin,
// have a few workers and a float32 batch of a few MiB; some decode, some wait on storage). Left out:
// slow_motion, fail_at_sample, seed, the dataset (synthetic), the device (the simulated GPU), start-up and
// the naive benchmark. Each config passes validate() and is small enough to measure in a couple of
// seconds on a 2-core machine (a batch of at most 64 MiB). The same seed draws the same configs.
#include <cstdint>
#include <vector>

#include "core/config/pipeline_config.h"

namespace pinscope {

std::vector<PipelineConfig> random_configs(uint64_t seed, int count);

}  // namespace pinscope
