#include "app/cli/stats_command.h"

#include <iostream>
#include <memory>

#include "app/cli/capture_input.h"
#include "app/cli/usage_error.h"

namespace pinscope {

Command add_stats_command(CLI::App& app) {
    CLI::App* cmd = app.add_subcommand("stats", "Print the metrics of a capture (.pinscope)");
    auto file = std::make_shared<std::string>();
    auto json = std::make_shared<bool>(false);
    cmd->add_option("file", *file, "The capture")->required()->option_text("FILE");
    cmd->add_flag("--json", *json, "Print them as one JSON object, with the keys of `run --json`");
    return {cmd, [file, json] {
                const RunReport report = capture_report(open_capture_for_cli(*file));
                if (*json)
                    std::cout << report_json(report).dump() << std::endl;
                else
                    print_report(std::cout, report);
                return kExitOk;
            }};
}

}  // namespace pinscope
