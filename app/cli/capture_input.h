#pragma once
// Opening a capture named on the command line: progress on a terminal for a big file, and a file that
// cannot be opened is bad input (exit 2, one line naming the file and what is wrong).
#include <filesystem>

#include "app/cli/run_report.h"
#include "core/io/capture.h"

namespace pinscope {

Capture open_capture_for_cli(const std::filesystem::path& path);

// What `stats` prints of a capture: the run report as `run` printed it, from the capture's spans.
RunReport capture_report(const Capture& capture);

}  // namespace pinscope
