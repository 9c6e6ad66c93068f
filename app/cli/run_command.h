#pragma once
// `pinscope run`: runs a config headless with a progress line, then prints a summary (or --json) and
// writes the trace (--trace FILE, Chrome Trace JSON) and the capture (--capture FILE, .pinscope).
#include <filesystem>
#include <memory>

#include "app/cli/command.h"
#include "app/cli/config_options.h"
#include "core/pipeline/session.h"

namespace pinscope {

struct HeadlessOutput {
    std::filesystem::path trace_file;    // empty: no trace
    std::filesystem::path capture_file;  // empty: no capture (.pinscope)
    bool json = false;                   // the summary as one JSON object on stdout
    bool progress = true;                // a progress line on stderr when it is a terminal
    bool advise = false;                 // the advisor's verdict and findings after the report
};

// Runs `config` to its end and reports; returns the exit code. Used by `run` and by the app when
// there is no display.
int run_headless(const PipelineConfig& config, const HeadlessOutput& output);

Command add_run_command(CLI::App& app);

// Fails early, as bad input, when a file cannot be written where the user asked.
void check_writable(const std::filesystem::path& file, const char* option);

}  // namespace pinscope
