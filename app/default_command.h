#pragma once
// What `pinscope` does with no command, and the commands that need optional parts of the build
// (the desktop app's `gui`, the CUDA device's `probe`).
#include <vector>

#include "app/cli/command.h"

namespace pinscope {

void add_platform_commands(CLI::App& app, std::vector<Command>& commands);

// The desktop app when this build has it and a display is there; otherwise the headless demo
// (`pinscope run` with its defaults), after saying why in one line.
int run_default_command();

}  // namespace pinscope
