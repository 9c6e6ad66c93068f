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

namespace pinscope {

Command add_advise_command(CLI::App& app) {
    CLI::App* cmd =
        app.add_subcommand("advise", "Say whether a capture's run was input-bound, and what to change");
    auto file = std::make_shared<std::string>();
    auto json = std::make_shared<bool>(false);
    auto cores = std::make_shared<unsigned>(std::max(1u, std::thread::hardware_concurrency()));
    cmd->add_option("file", *file, "The capture")->required()->option_text("FILE");
    cmd->add_flag("--json", *json, "Print the advice as one JSON object");
    cmd->add_option("--cores", *cores,
                    "The cores of the host that recorded it (a capture does not say); default: this one's")
        ->check(CLI::Range(1u, 4096u))
        ->option_text("N");
    return {cmd, [file, json, cores] {
                const Capture capture = open_capture_for_cli(*file, ConfigWarning::leave_to_caller);
                // Findings and fixes are about the config the run had: one that would not run says nothing.
                if (!capture.info.config_problem.empty())
                    throw UsageError(
                        fmt::format("{}: its config would not run ({}), so there is nothing the "
                                    "advisor can say of it; record the run again.",
                                    *file, cli_words(capture.info.config_problem)));
                const Metrics metrics = capture_metrics(capture);
                if (!capture.info.config)
                    throw UsageError(fmt::format(
                        "{}: it records no pipeline config (a trace pinscope did not run), and the "
                        "advisor's fixes are changes to one; `pinscope stats {}` gives its metrics.",
                        *file, *file));
                const PipelineConfig& config = *capture.info.config;
                AdviceContext ctx;
                ctx.window = capture.info.window;
                ctx.cores = *cores;
                // The recording host's RAM is unknown: only a budget the config set is checked.
                ctx.pinned_budget_bytes = config.pinned_budget_mb << 20;
                const Advice advice = advise(capture.store, metrics, config, ctx);
                if (*json) {
                    std::cout << advice_json(advice).dump() << std::endl;
                } else {
                    fmt::print("capture {}: {} on {}\n", capture.path.string(), capture.info.created,
                               capture.info.device.name);
                    print_advice(std::cout, advice, capture.store);
                }
                return kExitOk;
            }};
}

}  // namespace pinscope
