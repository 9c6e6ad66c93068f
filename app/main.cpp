// pinscope: the command line and, with no command, the desktop app.
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "app/cli/advise_command.h"
#include "app/cli/bench_command.h"
#include "app/cli/diff_command.h"
#include "app/cli/export_command.h"
#include "app/cli/help_formatter.h"
#include "app/cli/info_command.h"
#include "app/cli/lesson_command.h"
#include "app/cli/predict_command.h"
#include "app/cli/replay_command.h"
#include "app/cli/run_command.h"
#include "app/cli/stats_command.h"
#include "app/cli/stop_signals.h"
#include "app/cli/sweep_command.h"
#include "app/cli/usage_error.h"
#include "app/default_command.h"
#include "core/device/naive_copy.h"
#include "core/files/output_file.h"
#include "core/model/recent_host_rates.h"

using namespace pinscope;

namespace {

// "pinscope run" when the failing arguments belong to a subcommand, else "pinscope".
std::string command_name(int argc, char** argv, const std::vector<Command>& commands) {
    for (const Command& c : commands)
        if (argc > 1 && c.parser->get_name() == argv[1]) return "pinscope " + c.parser->get_name();
    return "pinscope";
}

}  // namespace

int main(int argc, char** argv) {
    install_stop_signals();  // before any command: no signal may leave a temporary file behind
    // A real GPU's naive benchmark needs a fresh process, which runs this very program.
    std::error_code no_link;
    set_fresh_process_program(std::filesystem::read_symlink("/proc/self/exe", no_link).string());
    // Predictions (predict, sweep, advise, the app's preview) answer on the host's rates kept between
    // invocations, and keep their own measurement, rather than each measuring once and swinging with it.
    set_this_host_rates_source(kept_host_rates_source());
    CLI::App app{
        "pinscope: a lab for how training data travels from host memory to a GPU.\n"
        "With no command it opens the desktop app (or, without a display, runs the headless demo);\n"
        "with a capture file (pinscope FILE.pinscope) it opens that.",
        "pinscope"};
    app.formatter(std::make_shared<HelpFormatter>());  // before the commands: they take it from here
    app.set_version_flag("--version", PINSCOPE_VERSION);
    app.require_subcommand(0, 1);
    std::vector<Command> commands = {add_run_command(app),    add_stats_command(app), add_diff_command(app),
                                     add_export_command(app), add_bench_command(app), add_info_command(app),
                                     add_lesson_command(app)};
    commands.push_back(add_advise_command(app));
    commands.push_back(add_replay_command(app));
    commands.push_back(add_sweep_command(app));
    commands.push_back(add_predict_command(app));
    add_platform_commands(app, commands);
    for (Command& c : commands) c.parser->option_defaults()->always_capture_default();
    std::string capture_file;
    app.add_option("capture", capture_file,
                   "A capture (.pinscope) or a PyTorch profiler trace (.json, .json.gz) to open")
        ->option_text("FILE");

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        const std::string name = command_name(argc, argv, commands);
        fmt::print(stderr, "{}: {}; see `{} --help`.\n", name, e.what(), name);
        return kExitUsage;
    }

    try {
        for (const Command& c : commands)
            if (c.parser->parsed()) return c.run();
        if (!capture_file.empty()) return open_capture(capture_file);
        return run_default_command();
    } catch (const UsageError& e) {
        fmt::print(stderr, "{}: {}\n", command_name(argc, argv, commands), e.what());
        return kExitUsage;
    } catch (const OutputPathError& e) {  // a file that cannot be written where the user asked
        fmt::print(stderr, "{}: {}\n", command_name(argc, argv, commands), e.what());
        return kExitUsage;
    } catch (const std::exception& e) {
        fmt::print(stderr, "{}: error: {}\n", command_name(argc, argv, commands), e.what());
        return kExitFailure;
    }
}
