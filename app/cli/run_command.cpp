#include "app/cli/run_command.h"

#include <atomic>
#include <csignal>
#include <iostream>

#include <fmt/format.h>
#include <unistd.h>

#include "app/cli/cli_words.h"
#include "app/cli/run_report.h"
#include "app/cli/usage_error.h"
#include "core/config/config_json.h"
#include "core/device/calibration.h"
#include "core/io/chrome_trace.h"
#include "core/io/metrics_json.h"
#include "core/trace/trace_collector.h"

namespace pinscope {
namespace {

constexpr int kExitInterrupted = 130;  // the shell's convention for a run stopped by Ctrl-C
std::atomic<bool> g_interrupted{false};

void on_interrupt(int) {
    g_interrupted = true;
}

// Metrics start when the first batch reaches the GPU, so thread start-up and the first pinned
// allocations do not count against a configuration (PyTorch's steady rate is measured the same way).
TimeNs first_batch_time(const TraceStore& store) {
    TimeNs first = 0;
    for (const LaneInfo& lane : store.lanes()) {
        if (lane.kind != LaneKind::h2d) continue;
        auto spans = store.spans(lane.id);
        if (!spans.empty() && (first == 0 || spans.front().start < first)) first = spans.front().start;
    }
    return first;
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

// Waits for the run to end, stopping it on Ctrl-C and, on a terminal, showing its progress.
void watch(Session& session, const PipelineConfig& config, bool show_progress) {
    g_interrupted = false;
    auto previous = std::signal(SIGINT, on_interrupt);
    int64_t last_batches = 0;
    TimeNs last_time = now_ns();
    while (!session.wait(200 * kNsPerMs)) {
        if (g_interrupted) session.stop();
        if (!show_progress) continue;
        const SessionStatus status = session.status();
        const TimeNs now = now_ns();
        const double rate =
            static_cast<double>(status.batches - last_batches) * config.batch_size / ns_to_s(now - last_time);
        last_batches = status.batches;
        last_time = now;
        print_progress(status, config, rate);
    }
    std::signal(SIGINT, previous);
    if (show_progress) fmt::print(stderr, "\r\033[K");
}

RunReport make_report(const Session& session, const TraceStore& store, const PipelineConfig& config) {
    RunReport report;
    report.status = session.status();
    report.metrics =
        compute_metrics(store, config.batch_size, MetricsWindow{first_batch_time(store), store.last_time()});
    report.dropped_spans = session.trace().dropped();
    report.evicted_spans = store.evicted_spans();
    report.gpu_trace = session.gpu_trace_report();
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

int run_headless(const PipelineConfig& config, const HeadlessOutput& output) {
    std::unique_ptr<Session> owned = opening_device([&] { return std::make_unique<Session>(config); });
    Session& session = *owned;
    if (!output.json)
        fmt::print(stderr, "device: {} ({})\n", session.status().device.name,
                   cli_words(session.status().device_why));
    TraceCollector collector(session.trace());  // drains the recorders' rings while the run goes on
    session.start();
    watch(session, config, output.progress && !output.json && ::isatty(STDERR_FILENO));

    collector.flush();
    const TraceCollector::Snapshot snapshot = collector.read();
    const RunReport report = make_report(session, snapshot.store(), config);
    if (output.json)
        std::cout << report_json(report).dump() << std::endl;
    else
        print_report(std::cout, report);
    if (!output.trace_file.empty()) write_trace(output.trace_file, snapshot.store(), report, output.json);
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
    cmd->add_flag("--json", output->json, "Print the summary as one JSON object on stdout")->group("Output");
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
                return run_headless(config, *output);
            }};
}

}  // namespace pinscope
