#include "app/cli/bench_command.h"

#include <filesystem>
#include <iostream>
#include <thread>
#include <vector>

#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "app/cli/bench_workload.h"
#include "app/cli/capture_bench.h"
#include "app/cli/deadline_bench.h"
#include "app/cli/predict_bench.h"
#include "app/cli/predictor_check.h"
#include "app/cli/predictor_replay.h"
#include "app/cli/run_command.h"
#include "app/cli/usage_error.h"
#include "core/pipeline/session.h"
#include "core/trace/trace_collector.h"

namespace pinscope {
namespace {

struct BenchCase {
    const char* name;
    int num_workers;
    bool pin_memory;
    PinMode pin_mode;
};

PipelineConfig zero_cost(const BenchCase& c, double seconds) {
    PipelineConfig config = zero_cost_workload();
    config.num_workers = c.num_workers;
    config.pin_memory = c.pin_memory;
    config.pin_mode = c.pin_mode;
    config.seconds = seconds;
    return config;
}

struct BenchResult {
    int64_t batches = 0;
    double seconds = 0;
    // Spans the recorders had no room for: a case that drops spans did less recording work than one
    // that keeps them all, so the two rates do not compare.
    uint64_t dropped_spans = 0;
    double batches_per_s() const { return seconds > 0 ? static_cast<double>(batches) / seconds : 0; }
};

BenchResult run_case(const PipelineConfig& config) {
    Session session(config);
    TraceCollector collector(session.trace());  // collected as the app does, so recording costs count
    session.start();
    session.wait();
    collector.flush();
    const SessionStatus status = session.status();
    if (status.state == SessionState::failed) throw std::runtime_error(status.error);
    return {status.batches, ns_to_s(status.elapsed), session.trace().dropped()};
}

}  // namespace

Command add_bench_command(CLI::App& app) {
    CLI::App* cmd = app.add_subcommand(
        "bench", "Measure the engine itself: batches/s with zero-cost work on the simulated GPU");
    auto seconds = std::make_shared<double>(2.0);
    auto json = std::make_shared<bool>(false);
    cmd->add_option("--seconds", *seconds, "Seconds per case")
        ->capture_default_str()
        ->check(CLI::Range(0.1, 600.0));
    cmd->add_flag("--json", *json, "Print the results as one JSON object");
    auto captures = std::make_shared<std::vector<size_t>>();
    auto folder = std::make_shared<std::string>(std::filesystem::temp_directory_path().string());
    auto open_capture = std::make_shared<std::string>();
    cmd->add_option("--captures", *captures,
                    "Instead: write and open captures of these many spans (e.g. 1000000 10000000)")
        ->option_text("SPANS...");
    cmd->add_option("--folder", *folder, "Where --captures writes its files (they are removed after)")
        ->option_text("DIR");
    auto keep = std::make_shared<bool>(false);
    cmd->add_flag("--keep", *keep, "Keep the captures --captures wrote (to open them in the app)");
    cmd->add_option("--open-capture", *open_capture, "Open a capture and print how long it took")->group("");
    auto profiler_trace = std::make_shared<double>(0);
    cmd->add_option("--profiler-trace", *profiler_trace,
                    "Instead: write a synthetic PyTorch profiler trace of about MB megabytes and open it")
        ->option_text("MB")
        ->check(CLI::Range(1.0, 100000.0));
    auto predict = std::make_shared<bool>(false);
    cmd->add_flag("--predict", *predict, "Instead: how many configs a second the predictor evaluates");
    auto check = std::make_shared<int>(0);
    cmd->add_option("--predictor-check", *check,
                    "Instead: predict N random configs (each knob that shapes the pipeline drawn within its "
                    "range), run each for --seconds on the simulated GPU, and print the errors' distribution")
        ->option_text("N")
        ->check(CLI::Range(1, 100000));
    auto seed = std::make_shared<uint64_t>(24);
    cmd->add_option("--seed", *seed,
                    "With --predictor-check: which random configs (24, the first held-out set, has since "
                    "been tuned on: judge the model on a seed nobody has run)")
        ->capture_default_str();
    auto repeat = std::make_shared<bool>(false);
    cmd->add_flag("--repeat", *repeat,
                  "With --predictor-check: run each config twice and print how far the two runs differ");
    auto passes = std::make_shared<int>(1);
    cmd->add_option(
           "--passes", *passes,
           "With --predictor-check: run the whole set this many times over and judge each config on "
           "the medians of its passes (a spell of a busy host then moves one pass, not the verdict), "
           "and print how far a config's runs a pass apart agree")
        ->check(CLI::Range(1, 9))
        ->capture_default_str();
    auto replay = std::make_shared<std::vector<std::string>>();
    cmd->add_option("--predictor-replay", *replay,
                    "Instead: predict again the runs these files of `--predictor-check N --json` hold (their "
                    "configs drawn again from their seeds, not run) and print how many come within 10% and "
                    "25%, then and now")
        ->option_text("FILE...");
    auto host_rates = std::make_shared<std::string>();
    cmd->add_option(
           "--host-rates", *host_rates,
           "With --predictor-replay: predict on the host rates kept in this file, or measure them and "
           "write them there when it does not exist (two builds then meet the same rates)")
        ->option_text("FILE");
    auto deadlines = std::make_shared<bool>(false);
    cmd->add_flag(
        "--deadlines", *deadlines,
        "Instead: how far past its seconds, or stop(), a run ends whose work would take far longer");
    return {
        cmd, [seconds, json, captures, folder, open_capture, keep, predict, deadlines, profiler_trace, check,
              seed, repeat, passes, replay, host_rates] {
            if (!replay->empty()) return run_predictor_replay(*replay, *host_rates, *json);
            if (!host_rates->empty()) throw UsageError("--host-rates goes with --predictor-replay.");
            if (*check > 0) return run_predictor_check(*check, *seed, *seconds, *repeat, *passes, *json);
            if (*predict) return run_predict_bench(*json);
            if (*deadlines) return run_deadline_bench(*json);
            if (!open_capture->empty()) return open_capture_timed(*open_capture);
            if (*profiler_trace > 0 || !captures->empty()) {
                std::error_code error;
                if (!std::filesystem::is_directory(*folder, error) || ::access(folder->c_str(), W_OK) != 0)
                    throw UsageError(
                        fmt::format("--folder {}: cannot write there; name a folder that exists "
                                    "and is writable.",
                                    *folder));
                if (*profiler_trace > 0) return run_profiler_trace_bench(*profiler_trace, *folder, *keep);
                return run_capture_bench(*captures, *folder, *keep);
            }
            const std::vector<BenchCase> cases = {
                {"inline (num_workers=0), pinned", 0, true, PinMode::thread},
                {"2 workers, pin thread", 2, true, PinMode::thread},
                {"2 workers, pinned direct", 2, true, PinMode::direct},
                {"4 workers, pageable", 4, false, PinMode::thread},
            };
            nlohmann::json results = nlohmann::json::array();
            if (!*json)
                fmt::print(
                    "engine benchmark: zero-cost samples, zero-time kernels, simulated GPU, {} s per "
                    "case, {} cores\n",
                    *seconds, std::thread::hardware_concurrency());
            for (const BenchCase& c : cases) {
                const BenchResult r = run_case(zero_cost(c, *seconds));
                results.push_back({{"case", c.name},
                                   {"batches", r.batches},
                                   {"batches_per_s", r.batches_per_s()},
                                   {"dropped_spans", r.dropped_spans}});
                if (!*json)
                    fmt::print("  {:<34} {:>10.0f} batches/s  {:>7.1f} us/batch{}\n", c.name,
                               r.batches_per_s(), r.batches ? 1e6 / r.batches_per_s() : 0.0,
                               r.dropped_spans ? fmt::format("  ({} spans dropped)", r.dropped_spans) : "");
            }
            if (*json) std::cout << nlohmann::json{{"bench", results}}.dump() << std::endl;
            return kExitOk;
        }};
}

}  // namespace pinscope
