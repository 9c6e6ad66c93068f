#include "app/cli/advise_command.h"

#include <iostream>
#include <memory>
#include <thread>

#include <fmt/format.h>

#include "app/cli/advice_report.h"
#include "app/cli/capture_input.h"
#include "app/cli/cli_words.h"
#include "app/cli/usage_error.h"
#include "core/io/advice_json.h"
#include "core/lab/trace_replay.h"
#include "core/model/predict.h"
#include "core/units/units.h"

namespace pinscope {
namespace {

// What the run's GPU work allows with nothing to load or copy: the speed of light every finding is
// measured against, predicted on the simulated GPU (the capture's own device may not be here).
std::optional<double> ideal_samples_per_s(PipelineConfig config) {
    config.data_on_gpu = true;
    config.device = DeviceChoice::sim;
    config.seconds = 5;
    config.batches = 0;
    config.slow_motion = 1;
    const std::optional<Metrics> predicted = predict_if_modelled(config);
    if (!predicted) return std::nullopt;
    return predicted->samples_per_s;
}

// The DataLoader arguments the lab's model of a trace holds, as a user writes them.
std::string loader_arguments(const PipelineConfig& c) {
    return fmt::format(
        "num_workers={}, pin_memory={}, prefetch_factor={}, batch_size={}, .to(non_blocking={})",
        c.num_workers, c.pin_memory ? "True" : "False",
        c.num_workers > 0 ? std::to_string(c.effective_prefetch_factor()) : "None", c.batch_size,
        c.non_blocking ? "True" : "False");
}

}  // namespace

Command add_advise_command(CLI::App& app) {
    CLI::App* cmd =
        app.add_subcommand("advise", "Say whether a capture's run was input-bound, and what to change");
    auto input = std::make_shared<TraceInput>();
    auto json = std::make_shared<bool>(false);
    auto cores = std::make_shared<unsigned>(std::max(1u, std::thread::hardware_concurrency()));
    add_trace_input(cmd, *input);
    cmd->add_flag("--json", *json, "Print the advice as one JSON object");
    auto cores_given = std::make_shared<std::string>();
    cmd->add_option("--cores", *cores,
                    "The cores of the host that recorded it (a capture does not say); default: this one's")
        ->check(CLI::Range(1u, 4096u))
        ->option_text("N")
        ->each([cores_given](const std::string& v) { *cores_given = v; });
    return {
        cmd, [input, json, cores, cores_given] {
            const Capture capture = open_capture_for_cli(input->file, ConfigWarning::leave_to_caller,
                                                         std::nullopt, input->side_files());
            // Findings and fixes are about the config the run had: one that would not run says nothing.
            if (!capture.info.config_problem.empty())
                throw UsageError(
                    fmt::format("{}: its config would not run ({}), so there is nothing the "
                                "advisor can say of it; record the run again.",
                                input->file, cli_words(capture.info.config_problem)));
            const Metrics metrics = capture_metrics(capture);
            // An imported profiler trace is advised on through the lab's model of it: the fixes are
            // then changes to the DataLoader's arguments (num_workers, pin_memory, ...).
            std::optional<TraceModel> model;
            if (!capture.info.config && !capture.info.source.empty()) try {
                    model = model_of_trace(capture);
                } catch (const std::invalid_argument& e) {
                    throw UsageError(fmt::format("{}: {}", input->file, e.what()));
                }
            if (!capture.info.config && !model)
                throw UsageError(
                    fmt::format("{}: it records no pipeline config (a trace pinscope did not run), and the "
                                "advisor's fixes are changes to one; `pinscope stats {}` gives its metrics.",
                                input->file, input->file));
            const PipelineConfig& config = model ? model->config : *capture.info.config;
            AdviceContext ctx;
            ctx.window = capture.info.window;
            ctx.cores = *cores;
            ctx.link_peak_gbps = capture.info.device.h2d_peak_gbps;
            // An imported trace's side files say how many cores its host had; --cores still wins.
            bool recorded_cores = false;
            const nlohmann::json& loader = capture.info.loader;
            if (model && cores_given->empty() && loader.is_object() && loader.contains("host_cpu_count") &&
                loader["host_cpu_count"].is_number_integer()) {
                ctx.cores = static_cast<unsigned>(loader["host_cpu_count"].get<int64_t>());
                recorded_cores = true;
            }
            // The recording host's RAM is unknown: only a budget the config set is checked.
            ctx.pinned_budget_bytes = config.pinned_budget_mb << 20;
            const Advice advice = advise(capture.store, metrics, config, ctx);
            const std::optional<double> ideal = ideal_samples_per_s(config);
            if (*json) {
                nlohmann::json out = advice_json(advice);
                if (ideal) out["ideal_samples_per_s"] = *ideal;
                std::cout << out.dump() << std::endl;
            } else {
                if (model)
                    fmt::print("trace {}: {} on {}; the DataLoader as the trace shows it: {}\n",
                               capture.path.string(), capture.info.source, capture.info.device.name,
                               loader_arguments(model->config));
                else
                    fmt::print("capture {}: {} on {}\n", capture.path.string(), capture.info.created,
                               capture.info.device.name);
                if (model && cores_given->empty() && recorded_cores)
                    fmt::print(
                        "(the advisor counts {} cores, the recording host's, from the loader's side files)\n",
                        ctx.cores);
                else if (model && cores_given->empty())
                    fmt::print(
                        "(the advisor counts {} cores, this machine's: the trace does not say its host's; "
                        "pass --cores N for the recording host's)\n",
                        ctx.cores);
                if (ideal && *ideal > 0)
                    fmt::print(
                        "the ideal, with the data already on the GPU (data_on_gpu): {} samples/s "
                        "predicted; this run: {} ({} of it)\n",
                        format_short_count(*ideal), format_short_count(metrics.samples_per_s),
                        format_share(metrics.samples_per_s / *ideal));
                print_advice(std::cout, advice, capture.store,
                             model ? FixWords::dataloader : FixWords::options);
            }
            return kExitOk;
        }};
}

}  // namespace pinscope
