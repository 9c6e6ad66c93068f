#pragma once
// What `bench --predictor-check` and `--predictor-replay` both print and compare: a prediction's error
// against a run, the share of errors within a bound, and a random config in the words of its knobs.
#include <string>
#include <vector>

#include "core/config/pipeline_config.h"

namespace pinscope {

// `value` against `reference`, as a fraction: +0.1 for 10% over. A reference of 0 (a run that finished
// no batch) gives infinity for any value above it, and 0 for a value of 0 too.
double relative_error(double value, double reference);

// "+12.3%", or "no batch" for a run that finished none in its seconds where some were predicted (its
// error has no size: it counts as a miss, and sorts first among the worst).
std::string error_text(double error);

// The share of `values` whose size is at most `bound` (0 of none).
double share_within(const std::vector<double>& values, double bound);

// The p-th percentile of the values' sizes, by nearest rank (0 of none).
double percentile_abs(std::vector<double> values, double p);

// "num_workers=8 batch_size=32 ...": the knobs a config sets away from the defaults.
std::string knobs_of(const PipelineConfig& config);

}  // namespace pinscope
