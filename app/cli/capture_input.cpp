#include "app/cli/capture_input.h"

#include <unistd.h>

#include <fmt/format.h>

#include "app/cli/cli_words.h"
#include "app/cli/usage_error.h"
#include "core/io/kineto/profiler_trace_import.h"
#include "core/units/units.h"

namespace pinscope {

namespace {

// Unknown memory sets no bound.
uint64_t half_the_memory() {
    const int64_t memory = physical_memory_bytes();
    return memory > 0 ? static_cast<uint64_t>(memory) / 2 : UINT64_MAX;
}

}  // namespace

Capture open_capture_for_cli(const std::filesystem::path& path, ConfigWarning warning,
                             std::optional<CaptureRange> range,
                             std::optional<std::filesystem::path> loader_dir) {
    if (loader_dir && !looks_like_profiler_trace(path))
        throw UsageError(
            fmt::format("--loader-dir {}: {} is not a PyTorch profiler trace; side files belong to one",
                        loader_dir->string(), path.string()));
    if (!range) {
        CaptureSize size;
        try {
            size = capture_size(path);
        } catch (const CaptureError&) {
            // load_capture below says what is wrong, as it always has.
        }
        if (range_that_fits(size, half_the_memory()))
            throw UsageError(fmt::format(
                "{}: reading all {} spans ({:.0f} s) needs about {:.1f} GB, more than half this machine's "
                "memory ({:.1f} GB); give --range FROM:TO (seconds, e.g. --range 0:30) to read a part",
                path.string(), size.spans, ns_to_s(size.window), static_cast<double>(size.memory_bytes) / 1e9,
                static_cast<double>(half_the_memory()) / 1e9));
    }
    std::error_code no_size;  // a missing file: load_capture says so
    const bool show_progress =
        ::isatty(STDERR_FILENO) && std::filesystem::file_size(path, no_size) > (64u << 20) && !no_size;
    int shown = -1;
    try {
        const auto progress = [&](double share) {
            const int percent = static_cast<int>(share * 100);
            if (show_progress && percent != shown) {
                fmt::print(stderr, "\r\033[Kopening {}: {}%", path.string(), percent);
                shown = percent;
            }
            return true;
        };
        Capture capture = loader_dir ? import_profiler_trace(path, progress, {*loader_dir})
                                     : load_capture(path, progress, range);
        if (show_progress) fmt::print(stderr, "\r\033[K");
        if (warning == ConfigWarning::print && !capture.info.config_problem.empty())
            fmt::print(stderr,
                       "warning: {}: its config would not run ({}); its spans are shown as recorded, but "
                       "rates that need the config may be wrong.\n",
                       path.string(), cli_words(capture.info.config_problem));
        // What an import skipped or could not read, in one line.
        if (!capture.info.import_note.empty())
            fmt::print(stderr, "warning: {}: {}\n", printable(path.string()),
                       printable(capture.info.import_note));
        return capture;
    } catch (const CaptureError& e) {
        if (show_progress) fmt::print(stderr, "\r\033[K");
        throw UsageError(e.what());
    }
}

void add_trace_input(CLI::App* cmd, TraceInput& input, const char* file_help) {
    cmd->add_option("file", input.file, file_help)->required()->option_text("FILE");
    cmd->add_option("--loader-dir", input.loader_dir,
                    "A profiler trace's loader side files are in DIR (default: pinscope-loader/ beside it)")
        ->option_text("DIR");
}

RunReport capture_report(const Capture& capture) {
    RunReport report;
    report.status.state = SessionState::finished;
    // A trace no pipeline of pinscope's ran has no config: the report's knobs are the defaults, and its
    // rates per sample are unknown (batch size 0).
    report.status.config = capture.info.config.value_or(PipelineConfig{});
    if (!capture.info.config) report.status.config.batch_size = 0;
    report.status.device = capture.info.device;
    report.status.device_why = capture.info.device_why;
    report.status.elapsed = capture.store.last_time() - capture.store.first_time();
    report.metrics = capture_metrics(capture);
    report.dropped_spans = capture.info.dropped_spans;
    report.evicted_spans = capture.info.evicted_spans;
    report.gpu_trace = capture.info.gpu_trace;
    CaptureSource source;
    source.file = capture.path.string();
    source.created = capture.info.created;
    source.writer_version = capture.info.writer_version;
    source.spans = capture.store.span_count();
    source.file_bytes = capture.file_bytes;
    source.has_config = capture.info.config.has_value();
    source.source = capture.info.source;
    source.import_note = capture.info.import_note;
    source.steps = profiler_steps(capture.store);
    source.samples_per_batch = capture.info.samples_per_batch;
    report.capture = std::move(source);
    if (const auto& part = capture.info.loaded_range) {
        const TimeNs origin = capture.info.window.start;  // a part's times count from it
        report.capture->range_s = {ns_to_s(part->start - origin), ns_to_s(part->end - origin)};
        report.capture->spans_in_file = capture.info.spans_in_file;
    }
    return report;
}

}  // namespace pinscope
