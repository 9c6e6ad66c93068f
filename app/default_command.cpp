#include "app/default_command.h"

#include <fmt/format.h>

#include "app/cli/probe_command.h"
#include "app/cli/run_command.h"
#if PINSCOPE_GUI_BUILT
#include "app/gui/gui_command.h"
#endif

namespace pinscope {

void add_platform_commands(CLI::App& app, std::vector<Command>& commands) {
    commands.push_back(add_probe_command(app));  // says what it lacks in a build without CUDA
#if PINSCOPE_GUI_BUILT
    commands.push_back(gui::add_gui_command(app));
#endif
}

int run_default_command() {
#if PINSCOPE_GUI_BUILT
    return gui::run_default_app();  // without a display: says so, then the headless demo
#else
    fmt::print(stderr,
               "pinscope: this build has no desktop app; running the headless demo (pinscope run with its "
               "defaults).\n");
    return run_headless(PipelineConfig{}, HeadlessOutput{});
#endif
}

}  // namespace pinscope
