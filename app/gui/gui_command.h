#pragma once
// `pinscope gui` and what `pinscope` does with no command: open the desktop app when there is a
// display, else say so in one line and run the headless demo. Never a crash: no display, no OpenGL
// or a missing font each end in a message that says what is missing.
#include <filesystem>
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

// `pinscope open FILE` and `pinscope FILE` where there is a display: the app showing a capture. A
// missing file or one that is not a capture is a UsageError; throws WindowError when no window opens.
int open_in_app(const std::filesystem::path& file);
// Throws UsageError naming `option` unless `file` is empty or looks like a capture.
void check_capture_file(const std::filesystem::path& file, const char* option);

}  // namespace pinscope::gui
