#pragma once
// `pinscope stats FILE [--json]`: the metrics table of a capture, as `run` printed it (and with --json
// the keys `run --json` uses), computed again from the capture's spans.
#include "app/cli/command.h"

namespace pinscope {

Command add_stats_command(CLI::App& app);

}  // namespace pinscope
