#pragma once
// `pinscope gui` and what `pinscope` does with no command: open the desktop app when there is a
// display, else say so in one line and run the headless demo. Never a crash: no display, no OpenGL
// or a missing font each end in a message that says what is missing.
#include <string>

#include "app/cli/command.h"
#include "app/gui/gui_options.h"
#include "core/config/pipeline_config.h"

namespace pinscope::gui {

Command add_gui_command(CLI::App& app);

// Opens the app on `config` (or on a synthetic trace). Throws std::runtime_error when no window can be
// opened, with the reason.
int run_gui(const PipelineConfig& config, const GuiOptions& options);

// Why there is no display to open a window on, or empty when there is one (DISPLAY or WAYLAND_DISPLAY).
std::string missing_display();

// `pinscope` with no command.
int run_default_app();

}  // namespace pinscope::gui
