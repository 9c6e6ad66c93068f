// Fuzzes the PyTorch profiler trace importer and the loader side-file reader together: any bytes either
// import as a capture whose metrics and steps can be computed, or are a CaptureError. Anything else (a
// crash, a sanitizer report, another exception, a hang) is a bug in core/io/kineto/.
//
// An input is a trace, optionally followed by a line "#SIDE" and one side file: the trace is written to
// a file (the importer reads files, as it streams them), and the side file into pinscope-loader/ beside
// it, so that the merge of a stranger's side file with a stranger's trace is fuzzed as well.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "core/analysis/metrics.h"
#include "core/analysis/profiler_steps.h"
#include "core/io/capture.h"
#include "core/io/kineto/loader_side_files.h"
#include "core/io/kineto/profiler_trace_import.h"

namespace {

const std::filesystem::path& folder() {
    static const std::filesystem::path path = [] {
        char name[] = "/tmp/pinscope-fuzz-trace-XXXXXX";
        if (!::mkdtemp(name)) std::abort();
        std::filesystem::create_directories(std::filesystem::path(name) / "pinscope-loader");
        return std::filesystem::path(name);
    }();
    return path;
}

void write(const std::filesystem::path& path, std::string_view bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    constexpr std::string_view kSide = "\n#SIDE\n";
    const size_t split = input.find(kSide);
    const std::filesystem::path trace = folder() / "trace.json";
    const std::filesystem::path side = folder() / "pinscope-loader" / "run-1.jsonl";
    write(trace, input.substr(0, split));
    if (split != std::string_view::npos) {
        const std::string_view side_text = input.substr(split + kSide.size());
        write(side, side_text);
        // The side file's own reader, on its text: a first line that is not a header is its documented
        // error; nothing else may escape.
        try {
            (void)pinscope::parse_loader_side_file(side_text);
        } catch (const std::runtime_error&) {
        }
    } else {
        std::filesystem::remove(side);
    }
    try {
        const pinscope::Capture capture = pinscope::import_profiler_trace(trace);
        (void)pinscope::capture_metrics(capture);
        (void)pinscope::profiler_steps(capture.store);
    } catch (const pinscope::CaptureError&) {
    }
    return 0;
}
