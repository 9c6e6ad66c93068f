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
    // samples/s of each run of this config, the grid's first, then its confirmations (a leading config
    // runs again, kConfirmRuns times); the metrics above are those of the run with the median samples/s.
    std::vector<double> runs;
};

struct SweepProgress {
    size_t done = 0, total = 0;  // configs of the grid finished (measured or failed) of those to run
    // Runs again of the leading configs, once the grid is done (0 and 0 before, and when none are needed).
    size_t confirm_done = 0, confirm_total = 0;
    const PipelineConfig* current = nullptr;        // the config running now; nullptr once all are done
    std::optional<double> predicted_samples_per_s;  // the current config's prediction, when there is one
    double eta_seconds = 0;                         // until the whole sweep ends
};

struct SweepOutcome {
    SweepGrid grid;
    std::vector<SweepResult> results;  // one per grid.configs, in its order
    bool stopped = false;              // stop() ended it before every config ran
};

// One run of a config moves by 10-20% from the next on a small or shared machine (a 2-core VM, 1 s cells),
// more than most of what a grid's neighbours differ by: a sweep that crowned the fastest single run named
// "3 workers, prefetch 1" where the same workers with prefetch 2 to 4 had run 8.5k to 9.9k samples/s and
// it 12.0k, and a class would have learnt that prefetch 1 is fastest (another named one config best by 18%
// over the next with one run each). So once the grid is done the leading configs (within kLeaderBand of
// the fastest, at least the two fastest, at most kMostLeaders) run kConfirmRuns times more, in turn,
// forwards then backwards so that a drift of the machine hits each alike; each is then judged on the
// median of its runs, and how far one config's runs spread says which leads are real (sweep_tie()).
constexpr double kLeaderBand = 0.25;
constexpr size_t kMostLeaders = 4;
constexpr int kConfirmRuns = 2;

class SweepRunner {
  public:
    // Each config runs for `seconds_each` (its `batches` bound, when the base sets one, may end it sooner);
    // the leading ones `confirm_runs` times more (0: each config runs once).
    SweepRunner(SweepGrid grid, double seconds_each, SamplesPredictor predictor = {},
                int confirm_runs = kConfirmRuns);

    // Runs every config in turn on the calling thread, then the leaders again. `on_progress` is called on
    // that thread before each run, about every 200 ms while it runs, and once at the end: it may call stop().
    SweepOutcome run(const std::function<void(const SweepProgress&)>& on_progress = {});
    // From any thread: the running config stops at once and no more start. Rows not run say so.
    void stop() { stop_requested_ = true; }

    // The runs of confirmations a grid of `configs` distinct configs may take at most (for estimates).
    size_t most_confirmations(size_t configs) const;

  private:
    SweepResult run_one(const PipelineConfig& config, double per_run_s, SweepProgress& progress,
                        const std::function<void(const SweepProgress&)>& on_progress);
    void confirm_leaders(SweepOutcome& outcome, double per_run_s, SweepProgress& progress,
                         const std::function<void(const SweepProgress&)>& on_progress);

    SweepGrid grid_;
    double seconds_each_;
    SamplesPredictor predictor_;
    int confirm_runs_;
    std::atomic<bool> stop_requested_{false};
};

// How far one config's runs spread here: over the rows run more than once, the median of (fastest run -
// slowest run) / their median. 0 when no row ran twice.
double run_spread(const std::vector<SweepResult>& results);
// How close to the fastest a row must be to count as tied with it: the run spread measured, and at least
// kSweepTie (two runs of one config differ by about that much on a quiet machine).
constexpr double kSweepTie = 0.02;
double sweep_tie(const std::vector<SweepResult>& results);
// The rows that ran within sweep_tie() of the fastest, the fastest first.
std::vector<size_t> tied_results(const std::vector<SweepResult>& results);
// The row to recommend, or nullopt when none ran. The highest samples/s wins; among the rows tied with
// it, the one holding the least pinned memory, then with fewer workers, then the faster wins: the cheaper
// config that is as fast.
std::optional<size_t> best_result(const std::vector<SweepResult>& results);
// Why best_result() chose as it did, once leading configs ran again: how far one config's runs spread,
// and which configs that leaves tied with the fastest or how far the best leads; empty when no row ran
// more than once.
std::string tie_verdict(const std::vector<SweepResult>& results);
// The lowest samples/s of the rows that ran, or 0.
double slowest_samples_per_s(const std::vector<SweepResult>& results);

// The table as CSV: a column per swept knob (its config key), then samples_per_s (the median of its runs),
// predicted_samples_per_s, stall, overlap, gpu_busy, h2d_gbps, pinned_bytes_max, batches, runs (each run's
// samples/s, separated by ';'), error. A row per result in grid order,
// then one per cell that could not run (its message in error).
std::string sweep_csv(const SweepOutcome& outcome);

}  // namespace pinscope
