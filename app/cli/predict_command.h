#pragma once
// `pinscope predict`: what a config would measure on the simulated GPU, from the pipeline model in tens of
// microseconds instead of a run. Takes the flags `pinscope run` takes; --json prints the keys `run --json`
// prints.
#include "app/cli/command.h"

namespace pinscope {

Command add_predict_command(CLI::App& app);

}  // namespace pinscope
