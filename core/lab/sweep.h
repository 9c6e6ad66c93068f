#pragma once
// A sweep: every distinct config of a grid (sweep_spec.h) run in turn for a bounded time with
// MeasuredRun, on the current device, into a table of results. The command line's `pinscope sweep` and
// the app's Sweep window both run through this; neither runs two configs at once, since two pipelines
// would compete for the host's cores and measure each other.
#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/lab/sweep_spec.h"

namespace pinscope {

// A prediction of a config's samples/s (the predictor's, core/model/predict.h), or nullopt when it has
// none. Optional: a sweep without one only measures.
using SamplesPredictor = std::function<std::optional<double>(const PipelineConfig&)>;

// One row of the table: a distinct config of the grid and what its run measured.
struct SweepResult {
    PipelineConfig config;
    bool ran = false;   // measured to the end (false: failed, or not reached before stop())
    std::string error;  // why not: the run's failure (a worker's error, a device that cannot be made)
    std::optional<double> predicted_samples_per_s;
    double samples_per_s = 0;
    double stall = 0, overlap = 0, gpu_busy = 0;  // fractions, as Metrics has them
    double h2d_gbps = 0;
    double pinned_bytes_max = 0;  // page-locked memory the run held at most
    int64_t batches = 0;
};

struct SweepProgress {
    size_t done = 0, total = 0;                     // configs finished (measured or failed) of those to run
    const PipelineConfig* current = nullptr;        // the config running now; nullptr once all are done
    std::optional<double> predicted_samples_per_s;  // the current config's prediction, when there is one
    double eta_seconds = 0;                         // until the whole sweep ends
};

struct SweepOutcome {
    SweepGrid grid;
    std::vector<SweepResult> results;  // one per grid.configs, in its order
    bool stopped = false;              // stop() ended it before every config ran
};

class SweepRunner {
  public:
    // Each config runs for `seconds_each` (its `batches` bound, when the base sets one, may end it sooner).
    SweepRunner(SweepGrid grid, double seconds_each, SamplesPredictor predictor = {});

    // Runs every config in turn on the calling thread. `on_progress` is called on that thread before each
    // config, about every 200 ms while it runs, and once at the end: it may call stop().
    SweepOutcome run(const std::function<void(const SweepProgress&)>& on_progress = {});
    // From any thread: the running config stops at once and no more start. Rows not run say so.
    void stop() { stop_requested_ = true; }

  private:
    SweepResult run_one(const PipelineConfig& config, SweepProgress& progress,
                        const std::function<void(const SweepProgress&)>& on_progress);

    SweepGrid grid_;
    double seconds_each_;
    SamplesPredictor predictor_;
    std::atomic<bool> stop_requested_{false};
};

// The row to recommend, or nullopt when none ran. The highest samples/s wins; rows within kSweepTie of
// it count as tied (two runs of one config differ by about that much), and among those the one holding
// the least pinned memory, then with fewer workers, then the faster wins: the cheaper config that is as
// fast.
constexpr double kSweepTie = 0.02;
std::optional<size_t> best_result(const std::vector<SweepResult>& results);
// The lowest samples/s of the rows that ran, or 0.
double slowest_samples_per_s(const std::vector<SweepResult>& results);

// The table as CSV: a column per swept knob (its config key), then samples_per_s, predicted_samples_per_s,
// stall, overlap, gpu_busy, h2d_gbps, pinned_bytes_max, batches, error. A row per result in grid order,
// then one per cell that could not run (its message in error).
std::string sweep_csv(const SweepOutcome& outcome);

}  // namespace pinscope
