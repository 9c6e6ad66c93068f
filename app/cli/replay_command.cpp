#include "app/cli/replay_command.h"

#include <iostream>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "app/cli/capture_input.h"
#include "app/cli/usage_error.h"
#include "core/config/config_json.h"
#include "core/config/validate.h"
#include "core/lab/measured_run.h"
#include "core/lab/trace_replay.h"

namespace pinscope {

Command add_replay_command(CLI::App& app) {
    CLI::App* cmd = app.add_subcommand(
        "replay",
        "Model an imported PyTorch profiler trace as a config and run it: its rate beside the trace's");
    auto input = std::make_shared<TraceInput>();
    auto device = std::make_shared<std::string>("sim");
    auto calibration = std::make_shared<std::string>();
    auto seconds = std::make_shared<double>(5.0);
    auto save = std::make_shared<std::string>();
    auto json = std::make_shared<bool>(false);
    add_trace_input(cmd, *input,
                    "A PyTorch profiler trace (.json, .json.gz), with its loader side files beside it");
    cmd->add_option("--device", *device, "Where to run the model: sim (the simulated GPU), cuda or auto")
        ->capture_default_str()
        ->check(CLI::IsMember({"sim", "cuda", "auto"}));
    cmd->add_option("--calibration", *calibration,
                    "The simulated GPU's calibration (pinscope probe on the machine that recorded the trace)")
        ->option_text("FILE");
    cmd->add_option("--seconds", *seconds, "How long the replay runs")
        ->capture_default_str()
        ->check(CLI::Range(0.5, 600.0));
    cmd->add_option("--save-config", *save, "Also write the config, for pinscope gui --config FILE")
        ->option_text("FILE");
    cmd->add_flag("--json", *json, "Print the model and the result as one JSON object");
    return {cmd, [=] {
                const Capture capture = open_capture_for_cli(input->file, ConfigWarning::print, std::nullopt,
                                                             input->side_files());
                TraceModel model;
                try {
                    model = model_of_trace(capture);
                } catch (const std::invalid_argument& e) {
                    throw UsageError(fmt::format("{}: {}", input->file, e.what()));
                }
                PipelineConfig config = model.config;
                config.device = *parse_choice<DeviceChoice>(*device);
                config.calibration = *calibration;
                config.seconds = *seconds;
                const Validation validation = validate(config);
                if (!validation.ok())
                    throw UsageError(fmt::format("{}: the model of this trace would not run: {}", input->file,
                                                 describe(validation.errors.front())));
                if (!save->empty()) save_config(std::filesystem::path(*save), config);
                if (!*json) {
                    fmt::print("model of {} ({} profiler steps, {:.2f} steps/s):\n", input->file, model.steps,
                               model.steps_per_s);
                    for (const InferredKnob& k : model.knobs)
                        fmt::print("  {:<16} {:<12} {}\n", k.key, k.value, k.from);
                    fmt::print("replaying it for {:.0f} s on {}...\n", *seconds, *device);
                    std::fflush(stdout);
                }
                MeasuredRun run(config);
                run.run();
                const Metrics m = run.metrics();
                const double error = model.steps_per_s > 0 ? m.batches_per_s / model.steps_per_s - 1 : 0;
                if (*json) {
                    nlohmann::json knobs = nlohmann::json::array();
                    for (const InferredKnob& k : model.knobs)
                        knobs.push_back({{"key", k.key}, {"value", k.value}, {"from", k.from}});
                    std::cout << nlohmann::json{{"trace_steps_per_s", model.steps_per_s},
                                                {"replay_steps_per_s", m.batches_per_s},
                                                {"error", error},
                                                {"device", run.session().status().device.name},
                                                {"knobs", knobs},
                                                {"config", config_to_json(config)}}
                                     .dump()
                              << std::endl;
                } else {
                    fmt::print("trace  {:8.2f} steps/s\nreplay {:8.2f} steps/s on {} ({:+.1f}%)\n",
                               model.steps_per_s, m.batches_per_s, run.session().status().device.name,
                               100 * error);
                    if (!save->empty())
                        fmt::print("config written to {}; move its sliders with: pinscope gui --config {}\n",
                                   *save, *save);
                }
                return kExitOk;
            }};
}

}  // namespace pinscope
