#include "app/cli/stats_command.h"

#include <iostream>
#include <memory>

#include "app/cli/capture_input.h"
#include "app/cli/usage_error.h"

namespace pinscope {

Command add_stats_command(CLI::App& app) {
    CLI::App* cmd =
        app.add_subcommand("stats", "Print the metrics of a capture (.pinscope) or a PyTorch profiler trace");
    auto input = std::make_shared<TraceInput>();
    auto json = std::make_shared<bool>(false);
    auto range = std::make_shared<std::string>();
    add_trace_input(cmd, *input);
    cmd->add_option(
           "--range", *range,
           "Read only this part of the capture, in seconds from its start (FROM:TO): the metrics are "
           "of that part. A capture too big for memory needs it")
        ->option_text("FROM:TO");
    cmd->add_flag("--json", *json, "Print them as one JSON object, with the keys of `run --json`");
    return {cmd, [input, json, range] {
                std::optional<CaptureRange> part;
                if (!range->empty()) try {
                        part = parse_capture_range(*range);
                    } catch (const std::invalid_argument& e) {
                        throw UsageError(std::string("--range ") + e.what());
                    }
                const RunReport report = capture_report(
                    open_capture_for_cli(input->file, ConfigWarning::print, part, input->side_files()));
                if (*json)
                    std::cout << report_json(report).dump() << std::endl;
                else
                    print_report(std::cout, report);
                return kExitOk;
            }};
}

}  // namespace pinscope
