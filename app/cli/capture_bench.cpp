#include "app/cli/capture_bench.h"
#include "app/cli/synthetic_profiler_trace.h"

#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <limits>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "app/cli/bench_workload.h"
#include "app/cli/usage_error.h"
#include "core/io/capture.h"
#include "core/lab/measured_run.h"
#include "core/lab/session_capture.h"
#include "core/units/units.h"

extern char** environ;

namespace pinscope {
namespace {

// The fastest pipeline there is (no workers, zero-cost samples, zero-time kernels): the most spans a
// second, which is what makes captures big.
PipelineConfig fastest(int64_t batches) {
    PipelineConfig config = zero_cost_workload();
    config.num_workers = 0;
    config.d2h_bytes = 64;  // a result copy per batch, so the D2H lanes hold spans too
    config.seconds = 0;
    config.batches = batches;
    return config;
}

struct Recorded {
    TraceStore store{TraceLimits{SIZE_MAX, SIZE_MAX}};
    CaptureInfo info;
};

// `spans` spans of a real run: recorded once (about a million), then repeated end to end with later
// times and batch ids until there are enough, so the columns have the statistics of a real trace.
Recorded record(size_t spans) {
    constexpr size_t kRecorded = 1'000'000;
    const size_t recorded_spans = std::min(spans, kRecorded);
    MeasuredRun run(fastest(static_cast<int64_t>(recorded_spans / 4 + 1000)));
    run.run();
    Recorded out;
    out.info = session_capture_info(run);
    const TraceCollector::Snapshot snapshot = run.trace();
    const TraceStore& real = snapshot.store();
    const TimeNs length = real.latest_span_end() - real.first_time() + kNsPerMs;
    const int64_t batches = real.batch_ids().second + 1;
    out.store.set_lanes(real.lanes());
    std::vector<std::vector<Span>> lanes(real.lanes().size());
    size_t total = 0;
    for (int copy = 0; total < spans; ++copy) {
        for (const LaneInfo& lane : real.lanes()) {
            for (Span span : real.spans(lane.id)) {
                if (total == spans) break;
                span.start += copy * length;
                span.end += copy * length;
                if (span.batch != kNoBatch) span.batch += copy * batches;
                lanes[lane.id].push_back(span);
                ++total;
            }
        }
    }
    for (size_t id = 0; id < lanes.size(); ++id) {
        std::sort(lanes[id].begin(), lanes[id].end(),
                  [](const Span& a, const Span& b) { return a.start < b.start; });
        out.store.adopt_lane(static_cast<LaneId>(id), std::move(lanes[id]));
    }
    out.info.window = {out.store.first_time(), out.store.last_time()};
    return out;
}

struct Opened {
    double seconds = 0;
    size_t spans = 0;
    long peak_kib = 0;
};

// Opens the file in a child process (`pinscope bench --open-capture FILE`), so that its peak memory is
// the opening's alone.
Opened open_in_child(const std::filesystem::path& file) {
    const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
    int pipe_fds[2];
    if (::pipe(pipe_fds) != 0) throw std::runtime_error("cannot make a pipe");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
    const std::string path = file.string();
    char* argv[] = {const_cast<char*>(self.c_str()), const_cast<char*>("bench"),
                    const_cast<char*>("--open-capture"), const_cast<char*>(path.c_str()), nullptr};
    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, self.c_str(), &actions, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(pipe_fds[1]);
    if (spawned != 0) {
        ::close(pipe_fds[0]);
        throw std::runtime_error("cannot start " + self);
    }
    std::string text;
    char buffer[4096];
    for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;)
        text.append(buffer, static_cast<size_t>(n));
    ::close(pipe_fds[0]);
    int status = 0;
    rusage usage{};
    ::wait4(pid, &status, 0, &usage);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        throw std::runtime_error("opening " + path + " failed");
    const nlohmann::json j = nlohmann::json::parse(text);
    return {j.at("seconds").get<double>(), j.at("spans").get<size_t>(), usage.ru_maxrss};
}

}  // namespace

int open_capture_timed(const std::filesystem::path& file) {
    const TimeNs start = now_ns();
    const Capture capture = load_capture(file);
    const double seconds = ns_to_s(now_ns() - start);
    std::cout << nlohmann::json{{"seconds", seconds}, {"spans", capture.store.span_count()}}.dump()
              << std::endl;
    return kExitOk;
}

int run_capture_bench(const std::vector<size_t>& sizes, const std::filesystem::path& folder, bool keep) {
    fmt::print(
        "capture benchmark: spans of the fastest pipeline (simulated GPU, no workers, zero-cost work), "
        "{} cores\n",
        std::thread::hardware_concurrency());
    fmt::print("  {:>12} {:>11} {:>10} {:>9} {:>10} {:>12}\n", "spans", "file", "bytes/span", "save s",
               "open s", "open peak");
    for (size_t spans : sizes) {
        const Recorded recorded = record(spans);
        const std::filesystem::path file = folder / fmt::format("pinscope-bench-{}.pinscope", spans);
        const TimeNs start = now_ns();
        save_capture(file, recorded.store, recorded.info);
        const double save_s = ns_to_s(now_ns() - start);
        const uintmax_t bytes = std::filesystem::file_size(file);
        const Opened opened = open_in_child(file);
        if (!keep) std::filesystem::remove(file);
        if (opened.spans != recorded.store.span_count())
            throw std::runtime_error(
                fmt::format("opened {} spans of {}", opened.spans, recorded.store.span_count()));
        fmt::print("  {:>12} {:>11} {:>10.2f} {:>9.2f} {:>10.2f} {:>12}\n", format_count(double(spans)),
                   format_bytes(double(bytes)), double(bytes) / double(spans), save_s, opened.seconds,
                   format_bytes(double(opened.peak_kib) * 1024));
    }
    fmt::print(
        "(a million spans are recorded once and repeated end to end, later in time, for bigger captures; "
        "the open is timed in a child process, whose peak resident memory is shown)\n");
    return kExitOk;
}

int run_profiler_trace_bench(double megabytes, const std::filesystem::path& folder, bool keep) {
    const std::filesystem::path file =
        folder / fmt::format("pinscope-bench-{:.0f}MB.pt.trace.json", megabytes);
    fmt::print(
        "profiler trace benchmark: a synthetic torch 2.4+ trace (Python stacks, operators, runtime calls, "
        "flows, copies, kernels), {} cores\n",
        std::thread::hardware_concurrency());
    const TimeNs start = now_ns();
    const SyntheticTraceStats made =
        write_synthetic_profiler_trace(file, static_cast<uint64_t>(megabytes * 1e6));
    fmt::print("  written: {} of JSON, {} events, {} steps, in {:.1f} s\n", format_bytes(double(made.bytes)),
               format_count(double(made.events)), made.steps, ns_to_s(now_ns() - start));
    const Opened opened = open_in_child(file);
    if (!keep) std::filesystem::remove(file);
    const double peak = double(opened.peak_kib) * 1024;
    fmt::print("  opened:  {:.2f} s ({:.0f} MB/s), {} spans, peak memory {} ({:.2f} of the JSON's size)\n",
               opened.seconds, double(made.bytes) / 1e6 / opened.seconds, format_count(double(opened.spans)),
               format_bytes(peak), peak / double(made.bytes));
    fmt::print(
        "(opened in a child process as `pinscope stats` opens it, without the metrics; its peak resident "
        "memory is shown)\n");
    return kExitOk;
}

}  // namespace pinscope
