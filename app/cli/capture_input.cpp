#include "app/cli/capture_input.h"

#include <unistd.h>

#include <fmt/format.h>

#include "app/cli/cli_words.h"
#include "app/cli/usage_error.h"

namespace pinscope {

Capture open_capture_for_cli(const std::filesystem::path& path, ConfigWarning warning) {
    std::error_code no_size;  // a missing file: load_capture says so
    const bool show_progress =
        ::isatty(STDERR_FILENO) && std::filesystem::file_size(path, no_size) > (64u << 20) && !no_size;
    int shown = -1;
    try {
        Capture capture = load_capture(path, [&](double share) {
            const int percent = static_cast<int>(share * 100);
            if (show_progress && percent != shown) {
                fmt::print(stderr, "\r\033[Kopening {}: {}%", path.string(), percent);
                shown = percent;
            }
            return true;
        });
        if (show_progress) fmt::print(stderr, "\r\033[K");
        if (warning == ConfigWarning::print && !capture.info.config_problem.empty())
            fmt::print(stderr,
                       "warning: {}: its config would not run ({}); its spans are shown as recorded, but "
                       "rates that need the config may be wrong.\n",
                       path.string(), cli_words(capture.info.config_problem));
        return capture;
    } catch (const CaptureError& e) {
        if (show_progress) fmt::print(stderr, "\r\033[K");
        throw UsageError(e.what());
    }
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
    report.capture =
        CaptureSource{capture.path.string(),      capture.info.created, capture.info.writer_version,
                      capture.store.span_count(), capture.file_bytes,   capture.info.config.has_value()};
    return report;
}

}  // namespace pinscope
