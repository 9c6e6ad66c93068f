#include "core/lab/sweep.h"

#include <algorithm>
#include <exception>
#include <tuple>

#include <fmt/format.h>

#include "core/device/median.h"
#include "core/lab/measured_run.h"

namespace pinscope {
namespace {

// Before any config has finished, each is guessed at its seconds plus this for start-up and draining.
constexpr double kGuessedOverheadS = 0.2;

double seconds_since(TimeNs start) {
    return ns_to_s(now_ns() - start);
}

SweepResult measured(const PipelineConfig& config, const MeasuredRun& run) {
    SweepResult r;
    r.config = config;
    const SessionStatus status = run.session().status();
    if (status.state == SessionState::failed) {
        r.error = status.error;
        return r;
    }
    if (status.state == SessionState::stopped) {
        r.error = "not run: the sweep was stopped";
        return r;
    }
    const Metrics m = run.metrics();
    r.ran = true;
    r.samples_per_s = m.samples_per_s;
    r.stall = m.stall;
    r.overlap = m.overlap;
    r.gpu_busy = m.gpu_busy;
    r.h2d_gbps = m.h2d_gbps;
    r.pinned_bytes_max = m.pinned_bytes_max;
    r.batches = m.batches;
    return r;
}

// CSV's quoting: a field with a comma, quote or line break is quoted, its quotes doubled.
std::string csv_field(const std::string& text) {
    if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
    std::string quoted = "\"";
    for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
}

}  // namespace

SweepRunner::SweepRunner(SweepGrid grid, double seconds_each, SamplesPredictor predictor, int confirm_runs)
    : grid_(std::move(grid)),
      seconds_each_(seconds_each),
      predictor_(std::move(predictor)),
      confirm_runs_(std::max(0, confirm_runs)) {
    for (PipelineConfig& config : grid_.configs) config.seconds = seconds_each_;
}

size_t SweepRunner::most_confirmations(size_t configs) const {
    return configs >= 2 ? std::min(kMostLeaders, configs) * static_cast<size_t>(confirm_runs_) : 0;
}

// One run of `config`, with progress about every 200 ms; the ETA counts `per_run_s` for each run left
// (the confirmations at most, while the grid runs).
SweepResult SweepRunner::run_one(const PipelineConfig& config, double per_run_s, SweepProgress& progress,
                                 const std::function<void(const SweepProgress&)>& on_progress) {
    const size_t confirmations_left = progress.confirm_total > 0
                                          ? progress.confirm_total - progress.confirm_done
                                          : most_confirmations(progress.total);
    const double runs_left = static_cast<double>(progress.total - progress.done + confirmations_left);
    const TimeNs started = now_ns();
    auto report = [&] {
        progress.eta_seconds = std::max(0.0, runs_left * per_run_s - seconds_since(started));
        if (on_progress) on_progress(progress);
    };
    progress.current = &config;
    progress.predicted_samples_per_s = predictor_ ? predictor_(config) : std::nullopt;
    report();
    SweepResult result;
    try {
        MeasuredRun run(config);
        run.run([&] {
            if (stop_requested_) run.session().stop();
            report();
        });
        result = measured(config, run);
    } catch (const std::exception& e) {  // the config could not start: a device, a calibration
        result.config = config;
        result.error = e.what();
    }
    result.predicted_samples_per_s = progress.predicted_samples_per_s;
    if (result.ran) result.runs.push_back(result.samples_per_s);
    return result;
}

SweepOutcome SweepRunner::run(const std::function<void(const SweepProgress&)>& on_progress) {
    SweepOutcome outcome;
    outcome.grid = grid_;
    SweepProgress progress;
    progress.total = grid_.configs.size();
    const TimeNs started = now_ns();
    auto per_run_s = [&] {
        const size_t runs = progress.done + progress.confirm_done;
        return runs > 0 ? seconds_since(started) / static_cast<double>(runs)
                        : seconds_each_ + kGuessedOverheadS;
    };
    for (const PipelineConfig& config : grid_.configs) {
        if (stop_requested_) {
            SweepResult skipped;
            skipped.config = config;
            skipped.error = "not run: the sweep was stopped";
            outcome.results.push_back(std::move(skipped));
            continue;
        }
        outcome.results.push_back(run_one(config, per_run_s(), progress, on_progress));
        ++progress.done;
    }
    if (!stop_requested_) confirm_leaders(outcome, per_run_s(), progress, on_progress);
    outcome.stopped = stop_requested_;
    progress.current = nullptr;
    progress.predicted_samples_per_s.reset();
    progress.eta_seconds = 0;
    if (on_progress) on_progress(progress);
    return outcome;
}

namespace {

// The rows within kLeaderBand of the fastest, the fastest first: at least the two fastest (the best is
// never named on one run against one run), at most kMostLeaders; none when fewer than two ran.
std::vector<size_t> leading_rows(const std::vector<SweepResult>& results) {
    std::vector<size_t> rows;
    double fastest = 0;
    for (size_t i = 0; i < results.size(); ++i)
        if (results[i].ran) {
            rows.push_back(i);
            fastest = std::max(fastest, results[i].samples_per_s);
        }
    if (rows.size() < 2) return {};
    std::ranges::stable_sort(
        rows, [&](size_t a, size_t b) { return results[a].samples_per_s > results[b].samples_per_s; });
    size_t leaders = 2;
    while (leaders < std::min(rows.size(), kMostLeaders) &&
           results[rows[leaders]].samples_per_s >= fastest * (1 - kLeaderBand))
        ++leaders;
    rows.resize(leaders);
    return rows;
}

// The row again, from all of its runs: the metrics of the run with the median samples/s (the upper one
// of an even count, as median() takes it), every run's samples/s kept.
SweepResult median_run(std::vector<SweepResult> runs) {
    std::vector<double> all;
    for (const SweepResult& r : runs) all.push_back(r.samples_per_s);
    std::ranges::sort(runs, {}, &SweepResult::samples_per_s);
    SweepResult row = runs[runs.size() / 2];
    row.runs = std::move(all);
    return row;
}

}  // namespace

void SweepRunner::confirm_leaders(SweepOutcome& outcome, double per_run_s, SweepProgress& progress,
                                  const std::function<void(const SweepProgress&)>& on_progress) {
    if (confirm_runs_ == 0) return;
    const std::vector<size_t> leaders = leading_rows(outcome.results);
    if (leaders.empty()) return;
    progress.confirm_total = leaders.size() * static_cast<size_t>(confirm_runs_);
    std::vector<std::vector<SweepResult>> runs(leaders.size());
    for (size_t i = 0; i < leaders.size(); ++i) runs[i].push_back(outcome.results[leaders[i]]);
    for (int round = 0; round < confirm_runs_ && !stop_requested_; ++round)
        for (size_t k = 0; k < leaders.size() && !stop_requested_; ++k) {
            const size_t i = round % 2 == 0 ? k : leaders.size() - 1 - k;  // forwards, then backwards
            SweepResult again = run_one(outcome.results[leaders[i]].config, per_run_s, progress, on_progress);
            if (again.ran) runs[i].push_back(std::move(again));
            ++progress.confirm_done;
        }
    for (size_t i = 0; i < leaders.size(); ++i) outcome.results[leaders[i]] = median_run(std::move(runs[i]));
}

double run_spread(const std::vector<SweepResult>& results) {
    std::vector<double> spreads;
    for (const SweepResult& r : results) {
        if (!r.ran || r.runs.size() < 2) continue;
        const auto [slowest, fastest] = std::ranges::minmax(r.runs);
        const double middle = median(r.runs);
        if (middle > 0) spreads.push_back((fastest - slowest) / middle);
    }
    return spreads.empty() ? 0 : median(std::move(spreads));
}

double sweep_tie(const std::vector<SweepResult>& results) {
    return std::max(kSweepTie, run_spread(results));
}

std::vector<size_t> tied_results(const std::vector<SweepResult>& results) {
    double fastest = 0;
    for (const SweepResult& r : results)
        if (r.ran) fastest = std::max(fastest, r.samples_per_s);
    const double tie = sweep_tie(results);
    std::vector<size_t> tied;
    for (size_t i = 0; i < results.size(); ++i)
        if (results[i].ran && results[i].samples_per_s >= fastest * (1 - tie)) tied.push_back(i);
    std::ranges::stable_sort(
        tied, [&](size_t a, size_t b) { return results[a].samples_per_s > results[b].samples_per_s; });
    return tied;
}

std::optional<size_t> best_result(const std::vector<SweepResult>& results) {
    std::optional<size_t> best;
    for (size_t i : tied_results(results)) {
        if (!best) {
            best = i;
            continue;
        }
        const auto key = [](const SweepResult& x) {
            return std::tuple(x.pinned_bytes_max, x.config.num_workers, -x.samples_per_s);
        };
        if (key(results[i]) < key(results[*best])) best = i;
    }
    return best;
}

std::string tie_verdict(const std::vector<SweepResult>& results) {
    size_t again = 0, most_runs = 0;
    for (const SweepResult& r : results)
        if (r.ran && r.runs.size() > 1) {
            ++again;
            most_runs = std::max(most_runs, r.runs.size());
        }
    const std::optional<size_t> best = best_result(results);
    if (again == 0 || !best) return {};
    const double spread = run_spread(results);
    const std::string ran = fmt::format(
        "the {} leading configs ran up to {} times each, judged on their medians; one config's runs "
        "differed by {:.0f}% here (the median of theirs)",
        again, most_runs, spread * 100);
    const std::vector<size_t> tied = tied_results(results);
    if (tied.size() > 1)
        return fmt::format(
            "{}, so the {} configs within {:.0f}% of the fastest are tied: this one is the cheapest of them "
            "(the least pinned memory, then the fewest workers)",
            ran, tied.size(), sweep_tie(results) * 100);
    double next = 0;
    for (size_t i = 0; i < results.size(); ++i)
        if (i != *best && results[i].ran) next = std::max(next, results[i].samples_per_s);
    if (next <= 0) return ran;
    return fmt::format("{}; it leads the next by {:.0f}%, more than that", ran,
                       (results[*best].samples_per_s / next - 1) * 100);
}

double slowest_samples_per_s(const std::vector<SweepResult>& results) {
    double slowest = 0;
    bool any = false;
    for (const SweepResult& r : results)
        if (r.ran) {
            slowest = any ? std::min(slowest, r.samples_per_s) : r.samples_per_s;
            any = true;
        }
    return slowest;
}

std::string sweep_csv(const SweepOutcome& outcome) {
    const SweepGrid& grid = outcome.grid;
    std::string csv;
    for (const SweepAxis& axis : grid.axes) csv += fmt::format("{},", axis.knob->key);
    csv +=
        "samples_per_s,predicted_samples_per_s,stall,overlap,gpu_busy,h2d_gbps,pinned_bytes_max,batches,runs,"
        "error\n";
    auto knob_fields = [&](const PipelineConfig& config) {
        std::string fields;
        for (const SweepAxis& axis : grid.axes) fields += csv_field(axis.knob->text(config)) + ",";
        return fields;
    };
    for (const SweepResult& r : outcome.results) {
        csv += knob_fields(r.config);
        const std::string predicted =
            r.predicted_samples_per_s ? fmt::format("{:.1f}", *r.predicted_samples_per_s) : std::string();
        if (r.ran)
            csv += fmt::format("{:.1f},{},{:.4f},{:.4f},{:.4f},{:.3f},{:.0f},{},{:.1f},\n", r.samples_per_s,
                               predicted, r.stall, r.overlap, r.gpu_busy, r.h2d_gbps, r.pinned_bytes_max,
                               r.batches, fmt::join(r.runs, ";"));
        else
            csv += fmt::format(",{},,,,,,,,{}\n", predicted, csv_field(r.error));
    }
    for (size_t cell = 0; cell < grid.cells(); ++cell) {
        if (grid.cell_config[cell] != SweepGrid::kNotRun) continue;
        PipelineConfig config = grid.base;
        const std::vector<size_t> at = grid.coordinates(cell);
        for (size_t a = 0; a < grid.axes.size(); ++a)
            grid.axes[a].knob->set(config, grid.axes[a].values[at[a]]);
        csv += knob_fields(config) + ",,,,,,,,," + csv_field(grid.problems[cell]) + "\n";
    }
    return csv;
}

}  // namespace pinscope
