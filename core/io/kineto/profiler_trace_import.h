#pragma once
// Opening a PyTorch profiler trace (torch.profiler's export_chrome_trace, .json or .json.gz) as a capture:
// streamed (the JSON is never held whole: a 1 GB trace takes memory for its spans, not its text), with
// the loader side files of python/pinscope_loader merged in when they are found.
#include <filesystem>
#include <functional>
#include <optional>
#include <vector>

#include "core/io/capture.h"

namespace pinscope {

struct ProfilerImportOptions {
    // Where the loader's side files are; unset: pinscope-loader/ beside the trace, if it is there.
    std::optional<std::filesystem::path> loader_dir;
};

// True when `path` starts like a profiler trace: gzip's magic, or JSON's '{' or '[' (after white space).
bool looks_like_profiler_trace(const std::filesystem::path& path);

// The profiler traces in `folder` (tensorboard_trace_handler's *.pt.trace.json[.gz], and any other
// *trace*.json[.gz] that starts like one), by name.
std::vector<std::filesystem::path> profiler_traces_in(const std::filesystem::path& folder);

// Reads the trace. `progress` is told the share read and returns false to cancel. Throws CaptureError
// (one line naming the file) for a file that holds no usable trace: not JSON, JSON of another kind, no
// events that can be shown, cancelled. A trace that is partly usable (cut short, some events malformed,
// no GPU events) opens, and CaptureInfo::import_note says in one line what was skipped.
Capture import_profiler_trace(const std::filesystem::path& path,
                              const std::function<bool(double)>& progress = {},
                              const ProfilerImportOptions& options = {});

}  // namespace pinscope
