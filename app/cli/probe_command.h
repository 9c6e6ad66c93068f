#pragma once
// `pinscope probe`: measures the GPU's copy bandwidths in this process, prints them as a table and
// writes them as a calibration file that the simulated GPU loads (--calibration FILE). Without a GPU
// it says why in one line and exits 2.
#include "app/cli/command.h"

namespace pinscope {

Command add_probe_command(CLI::App& app);

}  // namespace pinscope
