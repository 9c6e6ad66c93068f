#pragma once
// `pinscope sweep`: each knob's flag takes a sweep spec (--num-workers 0..8 --prefetch-factor 1..4
// --pin-memory both; one value keeps it fixed), every distinct config of the grid runs for
// --seconds-each on the current device with a progress line on stderr, then a table on stdout sorted by
// the swept knobs, the best config and the command line that runs it. --csv FILE writes the table,
// --json prints it as one object. Bad specs exit 2 with one line; Ctrl-C stops (exit 130) after
// printing what ran.
#include "app/cli/command.h"
#include "core/lab/sweep.h"

namespace pinscope {

Command add_sweep_command(CLI::App& app);

// The predicted samples/s the sweep shows before each run and in a column: the pipeline model's
// (core/model/predict.h), for configs on the simulated GPU.
SamplesPredictor sweep_predictor();

}  // namespace pinscope
