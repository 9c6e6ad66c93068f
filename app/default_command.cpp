#include "app/default_command.h"

#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "app/cli/capture_input.h"
#include "app/cli/naive_copy_command.h"
#include "app/cli/probe_command.h"
#include "app/cli/run_command.h"
#include "app/cli/usage_error.h"
#if PINSCOPE_GUI_BUILT
#include "app/gui/app_window.h"
#include "app/gui/gui_command.h"
#endif

namespace pinscope {
namespace {

int print_capture_stats(const std::filesystem::path& file, const std::string& why) {
    const RunReport report = capture_report(open_capture_for_cli(file));  // a bad file: exit 2 first
    fmt::print(stderr, "pinscope: {}; printing the capture's metrics (pinscope stats {}).\n", why,
               file.string());
    print_report(std::cout, report);
    return kExitOk;
}

Command add_open_command(CLI::App& app) {
    CLI::App* cmd = app.add_subcommand(
        "open",
        "Open a capture (.pinscope) or a PyTorch profiler trace (.json, .json.gz) in the desktop app");
    auto file = std::make_shared<std::string>();
    cmd->add_option("file", *file, "The capture, or a PyTorch profiler trace (.json, .json.gz)")
        ->required()
        ->option_text("FILE");
    return {cmd, [file] { return open_capture(*file); }};
}

}  // namespace

void add_platform_commands(CLI::App& app, std::vector<Command>& commands) {
    commands.push_back(add_probe_command(app));  // says what it lacks in a build without CUDA
    commands.push_back(add_naive_copy_child_command(app));
#if PINSCOPE_GUI_BUILT
    commands.push_back(gui::add_gui_command(app));
#endif
    commands.push_back(add_open_command(app));
}

int open_capture(const std::filesystem::path& file) {
#if PINSCOPE_GUI_BUILT
    if (std::string why = gui::missing_display(); !why.empty()) return print_capture_stats(file, why);
    try {
        return gui::open_in_app(file);
    } catch (const gui::WindowError& e) {
        return print_capture_stats(file, e.what());
    }
#else
    return print_capture_stats(file, "this build has no desktop app");
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
