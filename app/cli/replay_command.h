#pragma once
// `pinscope replay TRACE`: the lab's model of an imported PyTorch profiler trace (core/lab/trace_replay.h):
// what was inferred from what, then a run of it on the simulated GPU (or the real one), its rate beside
// the trace's. --save-config writes the config, for `pinscope gui --config FILE` to move its sliders.
#include "app/cli/command.h"

namespace pinscope {

Command add_replay_command(CLI::App& app);

}  // namespace pinscope
