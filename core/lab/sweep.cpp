#include "core/lab/sweep.h"

#include <algorithm>
#include <exception>
#include <tuple>

#include <fmt/format.h>

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

SweepRunner::SweepRunner(SweepGrid grid, double seconds_each, SamplesPredictor predictor)
    : grid_(std::move(grid)), seconds_each_(seconds_each), predictor_(std::move(predictor)) {
    for (PipelineConfig& config : grid_.configs) config.seconds = seconds_each_;
}

SweepOutcome SweepRunner::run(const std::function<void(const SweepProgress&)>& on_progress) {
    SweepOutcome outcome;
    outcome.grid = grid_;
    SweepProgress progress;
    progress.total = grid_.configs.size();
    const TimeNs started = now_ns();
    for (const PipelineConfig& config : grid_.configs) {
        if (stop_requested_) {
            SweepResult skipped;
            skipped.config = config;
            skipped.error = "not run: the sweep was stopped";
            outcome.results.push_back(std::move(skipped));
            continue;
        }
        const double per_config = progress.done > 0
                                      ? seconds_since(started) / static_cast<double>(progress.done)
                                      : seconds_each_ + kGuessedOverheadS;
        const TimeNs config_started = now_ns();
        auto report = [&] {
            progress.eta_seconds =
                std::max(0.0, static_cast<double>(progress.total - progress.done) * per_config -
                                  seconds_since(config_started));
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
        outcome.results.push_back(std::move(result));
        ++progress.done;
    }
    outcome.stopped = stop_requested_;
    progress.current = nullptr;
    progress.predicted_samples_per_s.reset();
    progress.eta_seconds = 0;
    if (on_progress) on_progress(progress);
    return outcome;
}

std::optional<size_t> best_result(const std::vector<SweepResult>& results) {
    double fastest = 0;
    for (const SweepResult& r : results)
        if (r.ran) fastest = std::max(fastest, r.samples_per_s);
    std::optional<size_t> best;
    for (size_t i = 0; i < results.size(); ++i) {
        const SweepResult& r = results[i];
        if (!r.ran || r.samples_per_s < fastest * (1 - kSweepTie)) continue;
        if (!best) {
            best = i;
            continue;
        }
        const SweepResult& b = results[*best];
        const auto key = [](const SweepResult& x) {
            return std::tuple(x.pinned_bytes_max, x.config.num_workers, -x.samples_per_s);
        };
        if (key(r) < key(b)) best = i;
    }
    return best;
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
        "samples_per_s,predicted_samples_per_s,stall,overlap,gpu_busy,h2d_gbps,pinned_bytes_max,batches,"
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
            csv +=
                fmt::format("{:.1f},{},{:.4f},{:.4f},{:.4f},{:.3f},{:.0f},{},\n", r.samples_per_s, predicted,
                            r.stall, r.overlap, r.gpu_busy, r.h2d_gbps, r.pinned_bytes_max, r.batches);
        else
            csv += fmt::format(",{},,,,,,,{}\n", predicted, csv_field(r.error));
    }
    for (size_t cell = 0; cell < grid.cells(); ++cell) {
        if (grid.cell_config[cell] != SweepGrid::kNotRun) continue;
        PipelineConfig config = grid.base;
        const std::vector<size_t> at = grid.coordinates(cell);
        for (size_t a = 0; a < grid.axes.size(); ++a)
            grid.axes[a].knob->set(config, grid.axes[a].values[at[a]]);
        csv += knob_fields(config) + ",,,,,,,," + csv_field(grid.problems[cell]) + "\n";
    }
    return csv;
}

}  // namespace pinscope
