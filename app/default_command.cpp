#include "app/default_command.h"

#include <cstdlib>

#include <fmt/format.h>

#include "app/cli/run_command.h"

namespace pinscope {

void add_platform_commands(CLI::App&, std::vector<Command>&) {}

int run_default_command() {
    fmt::print(stderr, "pinscope: this build has no desktop app; running the headless demo (pinscope run with its defaults).\n");
    return run_headless(PipelineConfig{}, HeadlessOutput{});
}

}  // namespace pinscope
