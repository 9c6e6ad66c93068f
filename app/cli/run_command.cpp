#include "app/cli/run_command.h"

#include <atomic>
#include <csignal>
#include <iostream>

#include <fmt/format.h>
#include <unistd.h>

#include "app/cli/advice_report.h"
#include "app/cli/cli_words.h"
#include "app/cli/run_report.h"
#include "app/cli/usage_error.h"
#include "core/analysis/advisor.h"
#include "core/config/config_json.h"
#include "core/device/calibration.h"
#include "core/io/advice_json.h"
#include "core/io/capture.h"
#include "core/io/chrome_trace.h"
#include "core/io/metrics_json.h"
#include "core/lab/measured_run.h"
#include "core/lab/session_capture.h"
#include "core/units/units.h"

namespace pinscope {
namespace {

constexpr int kExitInterrupted = 130;  // the shell's convention for a run stopped by Ctrl-C
std::atomic<bool> g_interrupted{false};

void on_interrupt(int) {
    g_interrupted = true;
}

void print_progress(const SessionStatus& status, const PipelineConfig& config, double samples_per_s) {
    std::string target = config.seconds > 0 ? fmt::format("/{:.1f} s", config.seconds) : " s";
    if (config.batches > 0)
        target += fmt::format(", {}/{} batches", status.batches, config.batches);
    else
        target += fmt::format(", {} batches", status.batches);
    fmt::print(stderr, "\r\033[K[{:.1f}{}] {:.0f} samples/s", ns_to_s(status.elapsed), target, samples_per_s);
}

}  // namespace

void check_writable(const std::filesystem::path& file, const char* option) {
    const std::filesystem::path folder = file.parent_path().empty() ? "." : file.parent_path();
    if (!std::filesystem::is_directory(folder) || ::access(folder.c_str(), W_OK) != 0)
        throw UsageError(fmt::format("{} {}: cannot write there; the folder {} must exist and be writable.",
                                     option, file.string(), folder.string()));
}

namespace {

// Stops the run on Ctrl-C and, on a terminal, shows its progress: called every 200 ms while it runs.
class Watcher {
  public:
    Watcher(Session& session, const PipelineConfig& config, bool show_progress)
        : session_(session),
          config_(config),
          show_progress_(show_progress),
          previous_(std::signal(SIGINT, on_interrupt)) {
        g_interrupted = false;
    }
    ~Watcher() {
        std::signal(SIGINT, previous_);
        if (show_progress_) fmt::print(stderr, "\r\033[K");
    }
    void operator()() {
        if (g_interrupted) session_.stop();
        if (!show_progress_) return;
        const SessionStatus status = session_.status();
        const TimeNs now = now_ns();
        const double rate = static_cast<double>(status.batches - last_batches_) * config_.batch_size /
                            ns_to_s(now - last_time_);
        last_batches_ = status.batches;
        last_time_ = now;
        print_progress(status, config_, rate);
    }

  private:
    Session& session_;
    const PipelineConfig& config_;
    bool show_progress_;
    void (*previous_)(int);
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

void write_trace(const std::filesystem::path& file, const TraceStore& store, const RunReport& report,
                 bool quiet) {
    ExportInfo info;
    info.device_name = report.status.device.name;
    info.config = config_to_json(report.status.config);
    info.metrics = metrics_json(report.metrics);
    save_chrome_trace(file, store, info);
    if (!quiet) fmt::print(stderr, "trace: {} ({} spans)\n", file.string(), store.span_count());
}

void write_capture(const std::filesystem::path& file, const MeasuredRun& run, bool quiet) {
    const CaptureInfo info = session_capture_info(run);  // before the snapshot: it reads the trace itself
    const TraceCollector::Snapshot snapshot = run.trace();
    const bool show_progress = !quiet && ::isatty(STDERR_FILENO) && snapshot->span_count() > 1'000'000;
    save_capture(file, snapshot.store(), info, [&](double share) {
        if (show_progress) fmt::print(stderr, "\r\033[Ksaving {}: {:.0f}%", file.string(), share * 100);
    });
    if (show_progress) fmt::print(stderr, "\r\033[K");
    if (!quiet)
        fmt::print(stderr, "capture: {} ({} spans, {}; open it with `pinscope {}`)\n", file.string(),
                   format_count(double(snapshot->span_count())),
                   format_bytes(double(std::filesystem::file_size(file))), file.string());
}

int exit_code(const SessionStatus& status) {
    switch (status.state) {
        case SessionState::failed:
            fmt::print(stderr, "pinscope: {}\n", status.error);
            return kExitFailure;
        case SessionState::stopped:
            return kExitInterrupted;
        default:
            return kExitOk;
    }
}

}  // namespace

// A run recorded to a capture keeps up to this many spans (about 1.3 GB): a minute of the fastest
// preset. Past it the oldest go, and the run's summary says how many.
constexpr TraceLimits kCaptureLimits{32'000'000, 8'000'000};

int run_headless(const PipelineConfig& config, const HeadlessOutput& output) {
    const TraceLimits limits = output.capture_file.empty() ? TraceLimits{} : kCaptureLimits;
    std::unique_ptr<MeasuredRun> run =
        opening_device([&] { return std::make_unique<MeasuredRun>(config, limits); });
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
        advice = pinscope::advise(snapshot.store(), report.metrics, report.status.config,
                                  cli_advice_context(report.status.config, run->window()));
    }
    if (output.json) {
        nlohmann::json j = report_json(report);
        if (advice) j["advice"] = advice_json(*advice);
        std::cout << j.dump() << std::endl;
    } else {
        print_report(std::cout, report);
        if (advice) print_advice(std::cout, *advice, run->trace().store());
    }
    if (!output.trace_file.empty()) write_trace(output.trace_file, run->trace().store(), report, output.json);
    if (!output.capture_file.empty()) write_capture(output.capture_file, *run, output.json);
    return exit_code(report.status);
}

Command add_run_command(CLI::App& app) {
    CLI::App* cmd = app.add_subcommand("run", "Run a pipeline headless and print a summary");
    auto options = std::make_shared<ConfigOptions>(*cmd, PipelineConfig{});
    auto output = std::make_shared<HeadlessOutput>();
    auto save_config_file = std::make_shared<std::string>();
    cmd->add_option("--trace", output->trace_file,
                    "Write the trace as Chrome Trace JSON (Perfetto, chrome://tracing)")
        ->option_text("FILE")
        ->group("Output");
    cmd->add_option("--capture", output->capture_file,
                    "Write a capture (.pinscope) that `pinscope FILE`, stats, diff and export open anywhere")
        ->option_text("FILE")
        ->group("Output");
    cmd->add_flag("--json", output->json, "Print the summary as one JSON object on stdout")->group("Output");
    cmd->add_flag("--advise", output->advise,
                  "After the summary, the advisor's verdict (input-bound or not) and findings, each with its "
                  "evidence and a fix; with --json under \"advice\"")
        ->group("Output");
    cmd->add_option("--save-config", *save_config_file, "Write the resolved config to a JSON file and exit")
        ->option_text("FILE")
        ->group("Output");
    return {cmd, [options, output, save_config_file] {
                const PipelineConfig config = options->resolve();
                if (!save_config_file->empty()) {
                    check_writable(*save_config_file, "--save-config");
                    save_config(*save_config_file, config);
                    return kExitOk;
                }
                if (!output->trace_file.empty()) check_writable(output->trace_file, "--trace");
                if (!output->capture_file.empty()) check_writable(output->capture_file, "--capture");
                return run_headless(config, *output);
            }};
}

}  // namespace pinscope
