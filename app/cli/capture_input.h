#pragma once
// Opening a capture named on the command line: progress on a terminal for a big file, a file that cannot
// be opened is bad input (exit 2, one line naming the file and what is wrong), and one whose config would
// not pass the command line's validator opens with a one-line warning on stderr.
#include <filesystem>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "app/cli/run_report.h"
#include "core/io/capture.h"

namespace pinscope {

// Whether a config that would not run is warned about here, or left to the caller (which refuses it).
enum class ConfigWarning { print, leave_to_caller };

// With `range`, only that part (seconds from the capture's start). Without one, a capture too big to read
// whole in half this machine's memory is refused with a message that says so and names --range.
// `loader_dir`: a PyTorch profiler trace's loader side files are there (not in pinscope-loader/ beside it).
// An import's note of what it skipped is printed on stderr as one warning line.
Capture open_capture_for_cli(const std::filesystem::path& path, ConfigWarning warning = ConfigWarning::print,
                             std::optional<CaptureRange> range = std::nullopt,
                             std::optional<std::filesystem::path> loader_dir = std::nullopt);

// The FILE and --loader-dir of a command that reads a capture or a PyTorch profiler trace (stats, advise,
// replay): one spelling of both, and the side-file folder as open_capture_for_cli takes it.
struct TraceInput {
    std::string file, loader_dir;
    std::optional<std::filesystem::path> side_files() const {
        return loader_dir.empty() ? std::nullopt : std::optional<std::filesystem::path>(loader_dir);
    }
};
void add_trace_input(CLI::App* cmd, TraceInput& input,
                     const char* file_help = "The capture, or a PyTorch profiler trace (.json, .json.gz)");

// What `stats` prints of a capture: the run report as `run` printed it, from the capture's spans.
RunReport capture_report(const Capture& capture);

}  // namespace pinscope
