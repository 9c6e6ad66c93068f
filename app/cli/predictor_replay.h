#pragma once
// `pinscope bench --predictor-replay FILE...`: the predictor judged again on runs a `--predictor-check
// --json` stored, without running them again. Each file's configs are drawn again from its seed (and
// refused if this build draws them differently), predicted on one set of this host's rates, and compared
// with the runs the file measured: within 10% and 25% as the file's own predictions had it ("then") and
// as this build's model has it ("now"), and the configs that came into or left the 10%. A model change is
// judged this way on every stored run in a minute, where running them again takes ten per set; the
// stored runs are in assets/predictor-runs/ (docs/predict.md).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/config/pipeline_config.h"

namespace pinscope {

// One config's run as a check stored it: the config drawn again from the seed, what the run measured,
// and what the model predicted for it then.
struct StoredRun {
    size_t index = 0;
    PipelineConfig config;
    double measured = 0, predicted = 0;  // samples/s
    std::optional<double> measured_stall;
};

struct StoredCheck {
    std::string file;
    uint64_t seed = 0;
    double seconds = 0;
    int cores = 0;     // the cores of the host that ran it (0: not stored)
    std::string host;  // the words the file gives its host, if any
    std::vector<StoredRun> runs;
};

// `file`'s check, its configs drawn again from its seed. UsageError for a file that is not one `bench
// --predictor-check N --json` wrote, and for one whose configs this build draws differently (the random
// configs changed since it ran, and its runs say nothing of the configs drawn now).
StoredCheck read_stored_check(const std::string& file);

// `host_rates_file`: where the rates are kept (the median of three measurements, measured and written there
// when the file does not exist), so that two builds are compared on the same rates; empty: measured now.
int run_predictor_replay(const std::vector<std::string>& files, const std::string& host_rates_file,
                         bool json);

}  // namespace pinscope
