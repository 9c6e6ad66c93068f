#pragma once
// `pinscope diff A B [--json]`: two captures side by side: the knobs that differ, then each metric of
// A and B and the difference (samples/s, H2D GB/s, overlap, how busy the GPU was and why it idled).
#include "app/cli/command.h"

namespace pinscope {

Command add_diff_command(CLI::App& app);

}  // namespace pinscope
