#include "app/cli/run_command.h"

#include <iostream>
#include <sstream>

#include <fmt/format.h>
#include <unistd.h>

#include "app/cli/advice_report.h"
#include "app/cli/cli_words.h"
#include "app/cli/output_option.h"
#include "app/cli/run_report.h"
#include "app/cli/stop_signals.h"
#include "app/cli/usage_error.h"
#include "core/analysis/advisor.h"
#include "core/config/config_json.h"
#include "core/device/calibration.h"
#include "core/io/advice_json.h"
#include "core/io/capture.h"
#include "core/io/capture_stream.h"
#include "core/io/chrome_trace.h"
#include "core/io/metrics_json.h"
#include "core/lab/measured_run.h"
#include "core/lab/session_capture.h"
#include "core/units/units.h"

namespace pinscope {
namespace {

void print_progress(const SessionStatus& status, const PipelineConfig& config, double samples_per_s) {
    std::string target = config.seconds > 0 ? fmt::format("/{:.1f} s", config.seconds) : " s";
    if (config.batches > 0)
        target += fmt::format(", {}/{} batches", status.batches, config.batches);
    else
        target += fmt::format(", {} batches", status.batches);
    fmt::print(stderr, "\r\033[K[{:.1f}{}] {:.0f} samples/s", ns_to_s(status.elapsed), target, samples_per_s);
}

// Stops the run on Ctrl-C, SIGTERM or SIGHUP and, on a terminal, shows its progress: called every
// MeasuredRun tick (50 ms) while it runs, so a stop takes effect within one.
class Watcher {
  public:
    Watcher(Session& session, const PipelineConfig& config, bool show_progress)
        : session_(session), config_(config), show_progress_(show_progress) {}
    ~Watcher() {
        if (show_progress_) fmt::print(stderr, "\r\033[K");
    }
    void operator()() {
        if (received_stop_signal() && !stopping_) {
            stopping_ = true;
            session_.stop();
        }
        const TimeNs now = now_ns();
        if (!show_progress_ || now - last_time_ < kProgressEvery) return;
        const SessionStatus status = session_.status();
        const double rate = static_cast<double>(status.batches - last_batches_) * config_.batch_size /
                            ns_to_s(now - last_time_);
        last_batches_ = status.batches;
        last_time_ = now;
        print_progress(status, config_, rate);
    }

  private:
    static constexpr TimeNs kProgressEvery = 200 * kNsPerMs;
    Session& session_;
    const PipelineConfig& config_;
    bool show_progress_;
    bool stopping_ = false;
    int64_t last_batches_ = 0;
    TimeNs last_time_ = now_ns();
};

RunReport make_report(MeasuredRun& run) {
    RunReport report;
    report.status = run.session().status();
    report.metrics = run.metrics();
    report.dropped_spans = run.session().trace().dropped();
    report.evicted_spans = run.trace()->evicted_spans();
    report.gpu_trace = run.session().gpu_trace_report();
    return report;
}

// "t.json (24 spans)", or for a device or FIFO "/dev/stdout (a stream, 24 spans)".
std::string written_note(const OutputFile& file, size_t spans) {
    if (file.kind() == OutputFile::Kind::stream)
        return fmt::format("{} (streamed, {} spans)", file.path().string(), format_count(double(spans)));
    std::error_code no_size;
    const auto bytes = std::filesystem::file_size(file.target(), no_size);
    return fmt::format("{} ({} spans, {})", file.path().string(), format_count(double(spans)),
                       no_size ? std::string("?") : format_bytes(double(bytes)));
}

void write_trace(OutputFile& file, const TraceStore& store, const RunReport& report, bool quiet) {
    ExportInfo info;
    info.device_name = report.status.device.name;
    info.config = config_to_json(report.status.config);
    info.metrics = metrics_json(report.metrics);
    if (!quiet && file.waits_for_reader())
        fmt::print(stderr, "trace: waiting for a reader of the FIFO {}\n", file.path().string());
    save_chrome_trace(file, store, info);
    if (!quiet) fmt::print(stderr, "trace: {}\n", written_note(file, store.span_count()));
}

// The run streamed its spans into `stream` as it recorded: what is left is the end's tables and META.
void finish_capture(CaptureStream& stream, const MeasuredRun& run, bool quiet) {
    const CaptureInfo info = streamed_capture_info(run, stream);  // before the snapshot: it reads the trace
    const TraceCollector::Snapshot snapshot = run.trace();
    stream.finish(snapshot->tables(), info);
    const OutputFile& file = stream.file();
    if (!quiet)
        fmt::print(stderr, "capture: {}{}\n", written_note(file, stream.spans()),
                   file.kind() == OutputFile::Kind::file
                       ? fmt::format("; open it with `pinscope {}`", file.path().string())
                       : std::string());
}

int exit_code(const SessionStatus& status) {
    constexpr int kExitInterrupted = 130;  // Ctrl-C's, for a stop that came from no signal
    switch (status.state) {
        case SessionState::failed:
            fmt::print(stderr, "pinscope: {}\n", status.error);
            return kExitFailure;
        case SessionState::stopped:
            return exit_code_after_signals(kExitInterrupted);
        default:
            return exit_code_after_signals(kExitOk);
    }
}

}  // namespace

int run_headless(const PipelineConfig& config, HeadlessOutput output) {
    const StopHandled stops_here;  // a signal stops the run; the summary and the files follow
    // A capture streams to disk as the run records (capture_stream.h): it holds every span, and the
    // store in memory keeps its usual bound.
    std::shared_ptr<CaptureStream> capture;
    if (output.capture) {
        if (!output.json && output.capture.waits_for_reader())
            fmt::print(stderr, "capture: waiting for a reader of the FIFO {}\n",
                       output.capture.path().string());
        capture = std::make_shared<CaptureStream>(std::move(output.capture));
    }
    std::unique_ptr<MeasuredRun> run =
        opening_device([&] { return std::make_unique<MeasuredRun>(config, TraceLimits{}, capture); });
    const SessionStatus before = run->session().status();
    if (!output.json)
        fmt::print(stderr, "device: {} ({})\n", before.device.name, cli_words(before.device_why));
    {
        Watcher watch(run->session(), config, output.progress && !output.json && ::isatty(STDERR_FILENO));
        run->run([&] { watch(); });
    }
    const RunReport report = make_report(*run);
    std::optional<Advice> advice;
    if (output.advise) {
        const TraceCollector::Snapshot snapshot = run->trace();
        AdviceContext ctx = cli_advice_context(report.status.config, run->window());
        ctx.link_peak_gbps = report.status.device.h2d_peak_gbps;
        advice = pinscope::advise(snapshot.store(), report.metrics, report.status.config, ctx);
    }
    // A trace or capture streamed to standard output owns it: the summary goes to stderr then.
    const bool stdout_taken =
        output.trace.is_standard_output() || (capture && capture->file().is_standard_output());
    std::ostringstream text;
    if (output.json) {
        nlohmann::json j = report_json(report);
        if (advice) j["advice"] = advice_json(*advice);
        text << j.dump() << "\n";
    } else {
        print_report(text, report);
        if (advice) print_advice(text, *advice, run->trace().store());
    }
    if (stdout_taken)
        std::cerr << text.str() << std::flush;
    else
        std::cout << text.str() << std::flush;
    if (output.trace) write_trace(output.trace, run->trace().store(), report, output.json);
    if (capture) finish_capture(*capture, *run, output.json);
    return exit_code(report.status);
}

Command add_run_command(CLI::App& app) {
    CLI::App* cmd = app.add_subcommand("run", "Run a pipeline headless and print a summary");
    auto options = std::make_shared<ConfigOptions>(*cmd, PipelineConfig{});
    struct Flags {
        OutputOption trace, capture, save_config;
        bool json = false, advise = false;
    };
    auto flags = std::make_shared<Flags>();
    add_output_option(*cmd, "--trace", flags->trace,
                      "Write the trace as Chrome Trace JSON (Perfetto, chrome://tracing); a FIFO or "
                      "/dev/stdout is streamed")
        ->group("Output");
    add_output_option(
        *cmd, "--capture", flags->capture,
        "Write a capture (.pinscope) that `pinscope FILE`, stats, diff and export open anywhere")
        ->group("Output");
    cmd->add_flag("--json", flags->json, "Print the summary as one JSON object on stdout")->group("Output");
    cmd->add_flag("--advise", flags->advise,
                  "After the summary, the advisor's verdict (input-bound or not) and findings, each with its "
                  "evidence and a fix; with --json under \"advice\"")
        ->group("Output");
    add_output_option(*cmd, "--save-config", flags->save_config,
                      "Write the resolved config to a JSON file and exit")
        ->group("Output");
    return {cmd, [options, flags] {
                const PipelineConfig config = options->resolve();
                OutputPlan plan;
                options->add_inputs(plan, config);
                if (flags->save_config.given()) {
                    OutputFile file = flags->save_config.ready(plan, "the config");
                    save_config(file, config);
                    return kExitOk;
                }
                HeadlessOutput output;
                // Chrome Trace JSON under a capture's name read as an empty profiler trace.
                if (flags->trace.given() && named_as_capture(flags->trace.path))
                    throw UsageError(fmt::format(
                        "--trace {}: --trace writes Chrome Trace JSON, not a capture; for a capture use "
                        "--capture {}, for the trace a name ending in .json",
                        flags->trace.path, flags->trace.path));
                output.trace = flags->trace.ready(plan, "the trace");
                output.capture = flags->capture.ready(plan, "the capture", OutputFormat::capture);
                output.json = flags->json;
                output.advise = flags->advise;
                return run_headless(config, std::move(output));
            }};
}

}  // namespace pinscope
