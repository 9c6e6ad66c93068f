#pragma once
// `pinscope bench --captures`: how big captures are and how fast they open. Captures of real spans
// (the fastest pipeline's) of each size are written and opened again in a child process; bytes per
// span, save and open times and the opening's peak memory are printed, not asserted.
#include <cstddef>
#include <filesystem>
#include <vector>

namespace pinscope {

// `keep`: leave the files in `folder` (pinscope-bench-SPANS.pinscope) rather than removing them.
int run_capture_bench(const std::vector<size_t>& sizes, const std::filesystem::path& folder, bool keep);

// `pinscope bench --profiler-trace MB`: a synthetic PyTorch profiler trace of about MB megabytes of JSON
// (app/cli/synthetic_profiler_trace.h) is written and opened in a child process: seconds, MB/s and peak
// memory against the JSON's size are printed.
int run_profiler_trace_bench(double megabytes, const std::filesystem::path& folder, bool keep);

// The child's side: opens `file`, prints {"seconds": ..., "spans": ...} (`bench --open-capture FILE`).
int open_capture_timed(const std::filesystem::path& file);

}  // namespace pinscope
