#pragma once
// A promise is what a preset (or a lesson) says a run of it shows, written as checks on the run's
// metrics, by the keys `pinscope run --json` prints (dotted for nested ones: "idle.loader"):
//
//   {"metric": "stall", "at_most": 0.2}                        the run itself
//   {"metric": "stall", "at_most": 0.2, "with": {"num_workers": 8}}   the run with these knobs changed
//   {"metric": "samples_per_s", "at_least_times": 1.5, "than": {"with": {"streams": 1}}}
//   {"metric": "samples_per_s", "at_least_times": 1.3, "than": {"preset": "pytorch-defaults"}}
//   {"metric": "h2d_busy", "at_least_times": 3, "than": {"metric": "gpu_busy"}}   two metrics of one run
//   {"metric": "idle.pageable_staging", "largest_of": "idle"}  the largest share among idle.*
//   {"metric": "stall", "lower_by_at_least": 0.3, "than": {"with": {"num_workers": 0}}}   by difference
//
// Comparisons: at_least, at_most (a number), at_least_times, at_most_times (a factor of the same
// metric in the `than` run), lower_by_at_least, higher_by_at_least (a difference from it, for shares),
// largest_of (an object of the metrics). A promise is {"text": ..., "checks":
// [...]}. Checking one runs every distinct config it names once, through `measure`.
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config/pipeline_config.h"

namespace pinscope {

struct CheckResult {
    bool held = false;
    std::string line;  // "stall 0.04, at most 0.2 (num_workers=8): held"
};

// Metrics JSON (metrics_json's keys) of a run of `config`.
using Measure = std::function<nlohmann::json(const PipelineConfig& config)>;

// Reads a promise as a whole before anything runs: every check an object naming a metric that `run --json`
// prints (a number, or for largest_of a group of numbers), one comparison with a finite number, a `than`
// where the comparison needs one, and every run it names (with, preset) a config that validates over
// `base`. Throws std::invalid_argument saying which check and what is wrong: a lesson or preset file is
// data a stranger may have written.
void validate_promise(const nlohmann::json& promise, const PipelineConfig& base);

// Checks every check of `promise` against runs of `base` (and the variants the checks name). Throws
// std::invalid_argument for a malformed promise (validate_promise's reasons).
std::vector<CheckResult> check_promise(const nlohmann::json& promise, const PipelineConfig& base,
                                       const Measure& measure);

}  // namespace pinscope
