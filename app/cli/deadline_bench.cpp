#include "app/cli/deadline_bench.h"

#include <iostream>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "app/cli/usage_error.h"
#include "core/pipeline/session.h"
#include "core/trace/trace_collector.h"

namespace pinscope {
namespace {

constexpr double kSeconds = 0.5;  // each case's bound

struct DeadlineCase {
    const char* name;
    PipelineConfig config;
    bool stopped = false;  // ended by stop() at kSeconds rather than by its seconds
};

PipelineConfig with_seconds(PipelineConfig c, double seconds) {
    c.device = DeviceChoice::sim;
    c.seconds = seconds;
    return c;
}

std::vector<DeadlineCase> cases() {
    PipelineConfig long_kernel;
    long_kernel.kernel_us = 10e6;
    PipelineConfig slow_batch;  // 96 MiB batches: collating one takes ~10 s at 1000x
    slow_batch.slow_motion = 1000;
    slow_batch.batch_size = 32;
    slow_batch.sample_shape.dims = {3, 512, 512};
    PipelineConfig slow_inline = slow_batch;
    slow_inline.num_workers = 0;
    PipelineConfig slow_io;  // a sample waits a second
    slow_io.io_us = 1e6;
    PipelineConfig pageable = slow_batch;  // 96 MiB staged from pageable memory at 100x
    pageable.slow_motion = 100;
    pageable.pin_memory = false;
    return {{"a 10 s kernel", with_seconds(long_kernel, kSeconds)},
            {"96 MiB batches at 1000x slow motion", with_seconds(slow_batch, kSeconds)},
            {"the same, loaded inline (no workers)", with_seconds(slow_inline, kSeconds)},
            {"a sample that waits 1 s (io_us)", with_seconds(slow_io, kSeconds)},
            {"96 MiB pageable copies at 100x", with_seconds(pageable, kSeconds)},
            {"stop() during a 10 s kernel", with_seconds(long_kernel, 0), true},
            {"stop() at 1000x slow motion", with_seconds(slow_batch, 0), true}};
}

// Milliseconds from the bound (its seconds, or the stop() call) to the run's end.
double overshoot_ms(const DeadlineCase& c) {
    Session session(c.config);
    TraceCollector collector(session.trace());
    session.start();
    if (!c.stopped) {
        session.wait();
        return (ns_to_s(session.status().elapsed) - kSeconds) * 1e3;
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(kSeconds));
    const TimeNs asked = now_ns();
    session.stop();
    return ns_to_s(now_ns() - asked) * 1e3;
}

}  // namespace

int run_deadline_bench(bool json) {
    nlohmann::json results = nlohmann::json::array();
    if (!json)
        fmt::print(
            "deadline benchmark: how long past its bound a run ends, simulated GPU, {} s bounds, {} cores\n",
            kSeconds, std::thread::hardware_concurrency());
    for (const DeadlineCase& c : cases()) {
        const double ms = overshoot_ms(c);
        results.push_back({{"case", c.name}, {"past_bound_ms", ms}});
        if (!json)
            fmt::print("  {:<40} {:>8.1f} ms past {}\n", c.name, ms, c.stopped ? "stop()" : "its seconds");
    }
    if (json) std::cout << nlohmann::json{{"deadlines", results}}.dump() << std::endl;
    return kExitOk;
}

}  // namespace pinscope
