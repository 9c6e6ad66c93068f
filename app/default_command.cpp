#include "app/default_command.h"

#include <cstdlib>

#include <fmt/format.h>

#include "app/cli/probe_command.h"
#include "app/cli/run_command.h"
#if PINSCOPE_GUI_BUILT  // [gui]
#include "app/gui/gui_command.h"  // [gui]
#endif  // [gui]

namespace pinscope {

// Commands that depend on optional parts of the build. Each part registers here, on its own line.
void add_platform_commands(CLI::App& app, std::vector<Command>& commands) {
    (void)app, (void)commands;
    commands.push_back(add_probe_command(app));  // [probe] the CUDA bandwidth probe (issue 3)
    // [gui] the desktop app's `gui` command registers here (issue 4).
#if PINSCOPE_GUI_BUILT  // [gui]
    commands.push_back(gui::add_gui_command(app));  // [gui]
#endif  // [gui]
}

int run_default_command() {
    // [gui] with a display, the desktop app opens here (issue 4).
#if PINSCOPE_GUI_BUILT  // [gui]
    return gui::run_default_app();  // [gui] without a display: says so, then the headless demo
#endif  // [gui]
    fmt::print(stderr,
               "pinscope: this build has no desktop app; running the headless demo (pinscope run with its "
               "defaults).\n");
    return run_headless(PipelineConfig{}, HeadlessOutput{});
}

}  // namespace pinscope
