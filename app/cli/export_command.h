#pragma once
// `pinscope export FILE --to perfetto|csv|png|svg --output OUT`: a capture as a Chrome/Perfetto trace,
// as CSV (the metrics, and every batch's stage latencies), or as a picture of its timeline.
#include "app/cli/command.h"

namespace pinscope {

Command add_export_command(CLI::App& app);

}  // namespace pinscope
