#pragma once
// `pinscope run`: runs a config headless with a progress line, then prints a summary (or --json) and
// writes the trace (--trace FILE, Chrome Trace JSON) and the capture (--capture FILE, .pinscope).
// Ctrl-C, SIGTERM and SIGHUP stop the run as its bounds would: the summary is printed, every file is
// written whole, and the exit code is 128 + the signal (stop_signals.h).
#include <filesystem>
#include <memory>

#include "app/cli/command.h"
#include "app/cli/config_options.h"
#include "core/files/output_file.h"
#include "core/pipeline/session.h"

namespace pinscope {

struct HeadlessOutput {
    OutputFile trace;      // none: no trace
    OutputFile capture;    // none: no capture (.pinscope)
    bool json = false;     // the summary as one JSON object on stdout
    bool progress = true;  // a progress line on stderr when it is a terminal
    bool advise = false;   // the advisor's verdict and findings after the report
};

// Runs `config` to its end and reports; returns the exit code. Used by `run` and by the app when
// there is no display. The outputs were readied (OutputPlan) before.
int run_headless(const PipelineConfig& config, HeadlessOutput output);

Command add_run_command(CLI::App& app);

}  // namespace pinscope
