#pragma once
// What `pinscope` does with no command (or with a capture file as its only argument), and the commands
// that need optional parts of the build (the desktop app's `gui`, the CUDA device's `probe`).
#include <filesystem>
#include <vector>

#include "app/cli/command.h"

namespace pinscope {

void add_platform_commands(CLI::App& app, std::vector<Command>& commands);

// The desktop app when this build has it and a display is there; otherwise the headless demo
// (`pinscope run` with its defaults), after saying why in one line.
int run_default_command();

// `pinscope FILE` and `pinscope open FILE`: the capture in the desktop app; without a display (or a
// build without the app), its metrics as `pinscope stats` prints them, after saying why in one line.
int open_capture(const std::filesystem::path& file);

}  // namespace pinscope
