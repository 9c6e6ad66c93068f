#include "app/cli/sweep_command.h"

#include <algorithm>
#include <iostream>
#include <memory>

#include <fmt/format.h>
#include <unistd.h>

#include "app/cli/cli_words.h"
#include "app/cli/output_option.h"
#include "app/cli/run_command.h"
#include "app/cli/stop_signals.h"
#include "app/cli/usage_error.h"
#include "core/config/config_json.h"
#include "core/config/knobs.h"
#include "core/config/presets.h"
#include "core/model/predict.h"
#include "core/units/units.h"

namespace pinscope {
namespace {

// `seconds` is --seconds-each: a flag of its own, so it is not a knob flag here.
bool sweepable(const Knob& knob) {
    return knob.key != "seconds";
}

struct SweepFlags {
    std::string preset_name, config_file;
    std::vector<std::string> specs;     // per knob of the table
    std::vector<CLI::Option*> options;  // per knob; nullptr for one that is not a flag here
    std::vector<CLI::Option*> negated;  // per boolean knob: --no-x, the same as --x false
    double seconds_each = 1.0;
    int confirm_runs = kConfirmRuns;
    OutputOption csv;
    bool json = false;
};

void add_knob_flags(CLI::App& cmd, SweepFlags& flags) {
    const PipelineConfig defaults;
    flags.specs.resize(knobs().size());
    flags.options.resize(knobs().size(), nullptr);
    flags.negated.resize(knobs().size(), nullptr);
    for (size_t i = 0; i < knobs().size(); ++i) {
        const Knob& knob = knobs()[i];
        if (!sweepable(knob)) continue;
        const std::string group(knob_group_title(knob.group));
        const std::string help = fmt::format("{} (default: {})", knob.help, knob.label(defaults));
        flags.options[i] =
            cmd.add_option(flag_for(knob.key), flags.specs[i], help)->option_text("SPEC")->group(group);
        if (knob.type == KnobType::boolean) {
            flags.options[i]->expected(0, 1);  // --pin-memory alone is --pin-memory true
            flags.negated[i] = cmd.add_flag(negated_flag_for(knob.key))
                                   ->description("The same as " + flag_for(knob.key) + " false")
                                   ->group(group);
        }
    }
}

// The config the sweep starts from, before its knob flags: the defaults, --preset, --config.
PipelineConfig starting_config(const SweepFlags& flags) {
    PipelineConfig config;
    if (!flags.preset_name.empty()) {
        const Preset* preset = find_preset(flags.preset_name);
        if (!preset)
            throw UsageError(fmt::format("--preset {}: no such preset; the presets are {}.",
                                         flags.preset_name, preset_slugs()));
        config = apply_preset(*preset, config);
    }
    if (!flags.config_file.empty()) {
        try {
            config = load_config(flags.config_file, config);
        } catch (const ConfigFileError& e) {
            throw UsageError(fmt::format("--config: {}", e.what()));
        }
    }
    return config;
}

// The grid the flags ask for: each knob flag's spec is an axis, or a fixed value when it has one value.
SweepGrid resolve_grid(const SweepFlags& flags) {
    PipelineConfig base = starting_config(flags);
    std::vector<SweepAxis> axes;
    for (size_t i = 0; i < knobs().size(); ++i) {
        const Knob& knob = knobs()[i];
        if (!flags.options[i]) continue;
        std::string spec;
        if (flags.negated[i] && flags.negated[i]->count() > 0)
            spec = "false";
        else if (flags.options[i]->count() > 0)
            spec = flags.specs[i].empty() && knob.type == KnobType::boolean ? "true" : flags.specs[i];
        else
            continue;
        try {
            SweepAxis axis = parse_sweep_axis(knob, spec);
            if (axis.values.size() == 1)
                knob.set(base, axis.values.front());
            else
                axes.push_back(std::move(axis));
        } catch (const SweepSpecError& e) {
            throw UsageError(fmt::format("{} {}: {}", flag_for(knob.key), spec, cli_words(e.problem())));
        }
    }
    base.seconds = flags.seconds_each;
    SweepGrid grid;
    try {
        grid = expand_sweep(base, std::move(axes));
    } catch (const SweepSpecError& e) {
        throw UsageError(e.what());
    }
    if (grid.configs.empty())
        throw UsageError(fmt::format("no config of the sweep can run: {}", cli_words(grid.problems.front())));
    return grid;
}

std::string percent(double fraction) {
    return fmt::format("{:.0f}%", fraction * 100);
}

// The swept knobs that do not apply in some cell, and so make cells repeat another's config.
std::string collapse_reason(const SweepGrid& grid) {
    std::vector<std::string> reasons;
    for (size_t cell = 0; cell < grid.cells(); ++cell) {
        PipelineConfig config = grid.base;
        const std::vector<size_t> at = grid.coordinates(cell);
        for (size_t a = 0; a < grid.axes.size(); ++a)
            grid.axes[a].knob->set(config, grid.axes[a].values[at[a]]);
        for (const SweepAxis& axis : grid.axes) {
            if (axis.knob->applies_to(config)) continue;
            const std::string reason = fmt::format("{} does not apply there", axis.knob->key);
            if (std::find(reasons.begin(), reasons.end(), reason) == reasons.end()) reasons.push_back(reason);
        }
    }
    return reasons.empty() ? "a knob does not apply there" : fmt::format("{}", fmt::join(reasons, ", "));
}

void print_plan(const SweepGrid& grid, const SweepFlags& flags, const SweepRunner& runner,
                const SessionStatus& device) {
    std::string line = fmt::format("sweep: {} configs ({}); {} distinct run", grid.cells(), grid.shape(),
                                   grid.configs.size());
    if (grid.collapsed() > 0)
        line +=
            fmt::format(", {} cells repeat another's config ({})", grid.collapsed(), collapse_reason(grid));
    if (grid.invalid() > 0) line += fmt::format(", {} cells cannot run", grid.invalid());
    const size_t most_again = runner.most_confirmations(grid.configs.size());
    if (most_again > 0)
        line += fmt::format(
            "; then the leading configs (within {:.0f}% of the fastest, at least two, {} at most) run {} "
            "times more each, to tell a lead from this machine's run-to-run noise",
            kLeaderBand * 100, kMostLeaders, flags.confirm_runs);
    fmt::print(stderr, "{}; {} s each, about {:.0f} s at most\n", line, knob_number(flags.seconds_each),
               static_cast<double>(grid.configs.size() + most_again) * (flags.seconds_each + 0.2));
    fmt::print(stderr, "device: {} ({})\n", device.device.name, cli_words(device.device_why));
    if (const std::string note = held_fixed_note(grid); !note.empty()) fmt::print(stderr, "{}\n", note);
}

// The progress line: rewritten in place on a terminal, one line per config otherwise (a log, a test).
class ProgressLine {
  public:
    ProgressLine(const SweepGrid& grid, SweepRunner& runner)
        : grid_(grid), runner_(runner), terminal_(::isatty(STDERR_FILENO)) {}
    ~ProgressLine() {
        if (terminal_) fmt::print(stderr, "\r\033[K");
    }
    void operator()(const SweepProgress& p) {
        if (received_stop_signal()) runner_.stop();
        if (!p.current) return;
        const bool new_config = p.done + p.confirm_done != last_done_ || !started_;
        if (!terminal_ && !new_config) return;
        started_ = true;
        last_done_ = p.done + p.confirm_done;
        const std::string predicted =
            p.predicted_samples_per_s
                ? fmt::format("  predicted {} samples/s", format_short_count(*p.predicted_samples_per_s))
                : std::string();
        const std::string step = p.confirm_total > 0
                                     ? fmt::format("[again {}/{}]", p.confirm_done + 1, p.confirm_total)
                                     : fmt::format("[{}/{}]", p.done + 1, p.total);
        const std::string text =
            fmt::format("{} {}{}  ... eta {:.0f} s", step, grid_.label(*p.current), predicted, p.eta_seconds);
        if (terminal_)
            fmt::print(stderr, "\r\033[K{}", text);
        else
            fmt::print(stderr, "{}\n", text);
    }

  private:
    const SweepGrid& grid_;
    SweepRunner& runner_;
    bool terminal_;
    size_t last_done_ = 0;
    bool started_ = false;
};

// "3 runs 11.2k-12.4k" for a row run more than once.
std::string runs_note(const SweepResult& r) {
    if (r.runs.size() < 2) return {};
    const auto [slowest, fastest] = std::ranges::minmax(r.runs);
    return fmt::format("  {} runs {}-{}", r.runs.size(), format_short_count(slowest),
                       format_short_count(fastest));
}

void print_table(std::ostream& out, const SweepOutcome& outcome, bool predicted) {
    const SweepGrid& grid = outcome.grid;
    const std::optional<size_t> best = best_result(outcome.results);
    const std::vector<size_t> tied = tied_results(outcome.results);
    std::vector<size_t> widths;
    for (const SweepAxis& axis : grid.axes) widths.push_back(std::max<size_t>(axis.knob->key.size(), 6));
    std::string header;
    for (size_t a = 0; a < grid.axes.size(); ++a)
        header += fmt::format("{:<{}}  ", grid.axes[a].knob->key, widths[a]);
    header += fmt::format("{:>10}", "samples/s");
    if (predicted) header += fmt::format("  {:>10}", "predicted");
    header += fmt::format("  {:>6}  {:>7}  {:>8}  {:>10}  {:>10}", "stall", "overlap", "GPU busy", "H2D GB/s",
                          "pinned");
    out << header << "\n";
    for (size_t i = 0; i < outcome.results.size(); ++i) {
        const SweepResult& r = outcome.results[i];
        std::string row;
        for (size_t a = 0; a < grid.axes.size(); ++a)
            row += fmt::format("{:<{}}  ", grid.axes[a].knob->text(r.config), widths[a]);
        if (!r.ran) {
            out << row << fmt::format("{:>10}", "-") << "  " << cli_words(r.error) << "\n";
            continue;
        }
        row += fmt::format("{:>10}", format_short_count(r.samples_per_s));
        if (predicted)
            row += fmt::format(
                "  {:>10}", r.predicted_samples_per_s ? format_short_count(*r.predicted_samples_per_s) : "-");
        row += fmt::format("  {:>6}  {:>7}  {:>8}  {:>10.1f}  {:>10}", percent(r.stall), percent(r.overlap),
                           percent(r.gpu_busy), r.h2d_gbps, format_bytes(r.pinned_bytes_max));
        row += runs_note(r);
        if (best && *best == i)
            row += "  <- best";
        else if (tied.size() > 1 && std::ranges::count(tied, i) > 0)
            row += "  ~ tied";
        out << row << "\n";
    }
    for (size_t cell = 0; cell < grid.cells(); ++cell)
        if (grid.cell_config[cell] == SweepGrid::kNotRun) {
            out << fmt::format("{} cells cannot run, e.g.: {}\n", grid.invalid(),
                               cli_words(grid.problems[cell]));
            break;
        }
}

// The flags of `run` that give `config`: --preset and --config as given, the swept knobs, and every other
// knob that differs from what those two give.
std::string run_command_line(const SweepFlags& flags, const SweepGrid& grid, const PipelineConfig& config) {
    const PipelineConfig reference = starting_config(flags);
    std::string line = "pinscope run";
    if (!flags.preset_name.empty()) line += " --preset " + flags.preset_name;
    if (!flags.config_file.empty()) line += " --config " + flags.config_file;
    for (const Knob& knob : knobs()) {
        const bool swept = axis_of(grid, knob.key).has_value() && knob.applies_to(config);
        if (knob.key == "seconds" || (!swept && knob.get(config) == knob.get(reference))) continue;
        if (knob.type == KnobType::boolean)
            line += " " + (knob.get(config).get<bool>() ? flag_for(knob.key) : negated_flag_for(knob.key));
        else
            line += fmt::format(" {} {}", flag_for(knob.key), knob.text(config));
    }
    return line;
}

void print_best(std::ostream& out, const SweepFlags& flags, const SweepOutcome& outcome) {
    const std::optional<size_t> best = best_result(outcome.results);
    if (!best) {
        out << "best: none; no config ran to the end\n";
        return;
    }
    const SweepResult& r = outcome.results[*best];
    const double slowest = slowest_samples_per_s(outcome.results);
    out << fmt::format("best: {} — {} samples/s ({:.1f}x the slowest)\n", outcome.grid.label(r.config),
                       format_short_count(r.samples_per_s), slowest > 0 ? r.samples_per_s / slowest : 0.0);
    if (const std::string why = tie_verdict(outcome.results); !why.empty()) out << why << "\n";
    out << "run it: " << run_command_line(flags, outcome.grid, r.config) << "\n";
}

nlohmann::json outcome_json(const SweepFlags& flags, const SweepOutcome& outcome) {
    using nlohmann::json;
    const SweepGrid& grid = outcome.grid;
    json axes = json::array();
    for (const SweepAxis& axis : grid.axes)
        axes.push_back({{"knob", axis.knob->key}, {"values", axis.values}});
    json results = json::array();
    for (const SweepResult& r : outcome.results) {
        json config = json::object();
        for (const SweepAxis& axis : grid.axes)
            config[std::string(axis.knob->key)] = axis.knob->get(r.config);
        json row = {{"config", config}, {"ran", r.ran}};
        row["predicted_samples_per_s"] =
            r.predicted_samples_per_s ? json(*r.predicted_samples_per_s) : json(nullptr);
        if (r.ran) {
            row.update({{"samples_per_s", r.samples_per_s},
                        {"stall", r.stall},
                        {"overlap", r.overlap},
                        {"gpu_busy", r.gpu_busy},
                        {"h2d_gbps", r.h2d_gbps},
                        {"pinned_bytes_max", r.pinned_bytes_max},
                        {"batches", r.batches},
                        {"runs", r.runs}});
        } else {
            row["error"] = r.error;
        }
        results.push_back(row);
    }
    const std::optional<size_t> best = best_result(outcome.results);
    return {{"axes", axes},
            {"run_spread", run_spread(outcome.results)},
            {"tie", sweep_tie(outcome.results)},
            {"tied", tied_results(outcome.results)},
            {"cells", grid.cells()},
            {"configs", grid.configs.size()},
            {"collapsed", grid.collapsed()},
            {"invalid", grid.invalid()},
            {"stopped", outcome.stopped},
            {"results", results},
            {"best", best ? json(*best) : json(nullptr)},
            {"best_command",
             best ? json(run_command_line(flags, grid, outcome.results[*best].config)) : json(nullptr)}};
}

int run_sweep(const SweepFlags& flags) {
    const StopHandled stops_here;  // a signal ends the sweep after its current config; the table follows
    SweepGrid grid = resolve_grid(flags);
    OutputPlan plan;
    plan.add_input(flags.config_file, "the --config file");
    plan.add_input(grid.configs.front().calibration, "the --calibration file");
    OutputFile csv = flags.csv.ready(plan, "the sweep's CSV");
    // The first config's device, made once up front: a device that cannot be had is bad input (exit 2),
    // not a table of failed rows.
    const SessionStatus device = opening_device([&] { return Session(grid.configs.front()).status(); });
    const SamplesPredictor predictor = sweep_predictor();
    SweepRunner runner(grid, flags.seconds_each, predictor, flags.confirm_runs);
    print_plan(grid, flags, runner, device);
    SweepOutcome outcome;
    {
        ProgressLine progress(grid, runner);
        outcome = runner.run([&](const SweepProgress& p) { progress(p); });
    }
    if (flags.json)
        std::cout << outcome_json(flags, outcome).dump() << std::endl;
    else {
        print_table(std::cout, outcome, static_cast<bool>(predictor));
        print_best(std::cout, flags, outcome);
    }
    if (csv) {
        csv.write(sweep_csv(outcome));
        if (!flags.json) fmt::print(stderr, "csv: {}\n", csv.path().string());
    }
    if (outcome.stopped) return exit_code_after_signals(130);
    return best_result(outcome.results) ? kExitOk : kExitFailure;
}

}  // namespace

SamplesPredictor sweep_predictor() {
    return predicted_samples_per_s;
}

Command add_sweep_command(CLI::App& app) {
    CLI::App* cmd = app.add_subcommand(
        "sweep", "Run a grid of configs, each for a bounded time, and recommend the fastest");
    cmd->footer(
        "Each knob's flag takes a sweep spec: a..b (every integer), a..b:step, a list such as 1,2,4, both "
        "(true and false), all (every choice), unset, or one value, which stays fixed. A knob that does not "
        "apply in a config (prefetch_factor with --num-workers 0) is left unset there, and a config runs "
        "once.\n"
        "e.g. pinscope sweep --device sim --num-workers 0..8 --prefetch-factor 1..4 --pin-memory both");
    auto flags = std::make_shared<SweepFlags>();
    cmd->add_option("--preset", flags->preset_name, "Start from a preset: " + preset_slugs())
        ->option_text("NAME");
    cmd->add_option("--config", flags->config_file,
                    "Start from a JSON config file; the flags here override it")
        ->option_text("FILE");
    add_knob_flags(*cmd, *flags);
    cmd->add_option("--seconds-each", flags->seconds_each, "How long each config runs")
        ->check(CLI::Range(0.05, 3600.0))
        ->option_text("SECONDS")
        ->group("Sweep");
    cmd->add_option("--confirm-runs", flags->confirm_runs,
                    "Once the grid is done, run the leading configs (those within 25% of the fastest, at "
                    "least the two fastest, 4 at most) this many times more and judge each on the median of "
                    "its runs; 0: every config runs once")
        ->capture_default_str()
        ->check(CLI::Range(0, 10))
        ->option_text("N")
        ->group("Sweep");
    add_output_option(*cmd, "--csv", flags->csv,
                      "Write the table as CSV (a column per swept knob, then the metrics)")
        ->group("Sweep");
    cmd->add_flag("--json", flags->json, "Print the table as one JSON object on stdout")->group("Sweep");
    return {cmd, [flags] { return run_sweep(*flags); }};
}

}  // namespace pinscope
