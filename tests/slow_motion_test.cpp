// Slow motion (slow_motion=100): the same run, every duration 100 times longer on the timeline, and the
// same metrics in real units. Run alone (RUN_SERIAL): the comparison is about speed.
#include <algorithm>
#include <cmath>
#include <vector>

#include <doctest/doctest.h>

#include "core/lab/measured_run.h"
#include "tests/sim_configs.h"
#include "tests/within.h"

using namespace pinscope;
using namespace pinscope::testing;

namespace {

struct Observed {
    Metrics metrics;
    double kernel_us = 0, h2d_us = 0;  // median span durations as recorded on the timeline
};

double median_us(const TraceStore& store, SpanKind kind) {
    std::vector<TimeNs> durations;
    for (const LaneInfo& lane : store.lanes())
        for (const Span& s : store.spans(lane.id))
            if (s.kind == kind) durations.push_back(s.end - s.start);
    REQUIRE(!durations.empty());
    std::nth_element(durations.begin(), durations.begin() + durations.size() / 2, durations.end());
    return static_cast<double>(durations[durations.size() / 2]) / 1e3;
}

Observed observe(PipelineConfig config) {
    MeasuredRun run(config);
    run.run();
    const TraceCollector::Snapshot trace = run.trace();
    return {run.metrics(), median_us(trace.store(), SpanKind::kernel),
            median_us(trace.store(), SpanKind::h2d)};
}

// A pipeline that keeps the GPU mostly busy without loading both cores: workers waiting on io_us,
// collating straight into pinned memory, one stream (so no two copies share the link, and a copy's span
// is its calibrated time). Durations are milliseconds, so what slow motion does not scale (a thread's
// wake-up, a queue's hand-over: tens of microseconds) is small beside them at normal speed too.
PipelineConfig workload() {
    PipelineConfig config = on_sim();
    config.num_workers = 2;
    config.pin_mode = PinMode::direct;
    config.batch_size = 16;
    config.sample_shape.dims = {3, 64, 64};
    config.io_us = 200;
    config.kernel_us = 4000;
    config.streams = 1;
    config.seconds = 0;
    return config;
}

}  // namespace

TEST_CASE(
    "in slow motion at 100x a batch's spans last 100x longer and the metrics in real units stay "
    "within 10%") {
    PipelineConfig normal = workload();
    normal.batches = 40;
    PipelineConfig slow = workload();
    slow.slow_motion = 100;
    slow.batches = 12;  // 400 ms a batch: about 5 s

    const Observed a = observe(normal), b = observe(slow);
    MESSAGE("kernel " << a.kernel_us << " us -> " << b.kernel_us << " us; h2d " << a.h2d_us << " us -> "
                      << b.h2d_us << " us; samples/s " << a.metrics.samples_per_s << " -> "
                      << b.metrics.samples_per_s << "; H2D " << a.metrics.h2d_gbps << " -> "
                      << b.metrics.h2d_gbps << " GB/s; GPU busy " << a.metrics.gpu_busy << " -> "
                      << b.metrics.gpu_busy);

    CHECK(b.kernel_us / a.kernel_us == within(100, 0.05));
    CHECK(b.h2d_us / a.h2d_us == within(100, 0.15));
    CHECK(b.metrics.samples_per_s / a.metrics.samples_per_s == within(1, 0.10));
    CHECK(b.metrics.h2d_gbps / a.metrics.h2d_gbps == within(1, 0.10));
    CHECK(std::abs(b.metrics.gpu_busy - a.metrics.gpu_busy) <= 0.10);
    CHECK(std::abs(b.metrics.stall - a.metrics.stall) <= 0.10);
    // Latencies come back in real units too: a kernel's stage latency is its kernel_us either way.
    for (const Metrics* m : {&a.metrics, &b.metrics}) {
        auto kernel = std::find_if(m->latencies.begin(), m->latencies.end(),
                                   [](const StageLatency& l) { return l.kind == SpanKind::kernel; });
        REQUIRE(kernel != m->latencies.end());
        CHECK(kernel->p50_us == within(4000, 0.05));
    }
}

TEST_CASE("slow motion and another copy-engine count are the simulated GPU's: a real one refuses them") {
    PipelineConfig config;
    config.device = DeviceChoice::cuda;
    config.slow_motion = 10;
    CHECK_THROWS_WITH_AS(MeasuredRun{config}, doctest::Contains("slow motion needs the simulated GPU"),
                         std::invalid_argument);
    config.slow_motion = 1;
    config.copy_engines = 1;
    CHECK_THROWS_WITH_AS(MeasuredRun{config}, doctest::Contains("use device=sim to model another count"),
                         std::invalid_argument);
}
