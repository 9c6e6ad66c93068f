// What the machine's other work takes of the cores (core/pipeline/other_cpu_load.h), and the CPU time of
// the pipeline's own threads it is told apart by (core/pipeline/pipeline_thread.h).
#include <doctest/doctest.h>

#include "core/pipeline/other_cpu_load.h"
#include "core/pipeline/pipeline_thread.h"

namespace pinscope {

TEST_CASE("the busy time of all cores is read from /proc/stat's first line, steal and idle left out") {
    // user nice system idle iowait irq softirq steal guest guest_nice, at 100 ticks a second
    const std::optional<TimeNs> busy = busy_cpu_ns_in_proc_stat(
        "cpu  100 20 30 5000 40 6 4 900 0 0\ncpu0 50 10 15 2500 20 3 2 450 0 0", 100);
    REQUIRE(busy);
    CHECK(*busy == (100 + 20 + 30 + 6 + 4) * kNsPerS / 100);

    for (const char* broken : {"", "cpu0 1 2 3 4 5 6 7", "cpu  1 2 3", "cpu  1 2 x 4 5 6 7",
                               "intr 1 2 3 4 5 6 7", "cpu  1 2 -3 4 5 6 7"}) {
        CAPTURE(broken);
        CHECK_FALSE(busy_cpu_ns_in_proc_stat(broken, 100));
    }
    CHECK_FALSE(busy_cpu_ns_in_proc_stat("cpu  1 2 3 4 5 6 7", 0));
    // This machine's own: readable on Linux, and it only grows.
    const std::optional<TimeNs> before = machine_busy_cpu_ns();
    REQUIRE(before);
    CHECK(*machine_busy_cpu_ns() >= *before);
}

TEST_CASE("the other work's load is the machine's busy time less the pipeline's, a core's worth a second") {
    using Reading = OtherCpuLoad::Reading;
    // Over 2 s the machine ran 3 s of CPU, the pipeline 1.2 of it: 1.8 s of others, 0.9 of a core.
    const Reading from{
        .wall_ns = 10 * kNsPerS, .machine_busy_ns = 100 * kNsPerS, .pipeline_ns = 40 * kNsPerS};
    const Reading to{.wall_ns = 12 * kNsPerS,
                     .machine_busy_ns = 103 * kNsPerS,
                     .pipeline_ns = 41 * kNsPerS + 200 * kNsPerMs};
    CHECK(OtherCpuLoad::cores_between(from, to) == doctest::Approx(0.9));
    // Ticks are coarse: a pipeline read finer than the machine can come out ahead of it. Never below 0.
    Reading ahead = to;
    ahead.pipeline_ns = 44 * kNsPerS;
    CHECK(OtherCpuLoad::cores_between(from, ahead) == 0);
    CHECK(OtherCpuLoad::cores_between(to, from) == 0);

    OtherCpuLoad load;
    CHECK_FALSE(load.cores());
    load.add(from);
    CHECK_FALSE(load.cores());  // one reading: no window yet
    load.add(to);
    REQUIRE(load.cores());
    CHECK(*load.cores() == doctest::Approx(0.9));
    load.restart();
    CHECK(*load.cores() == doctest::Approx(0.9));  // kept until the next window says otherwise
    load.add(ahead);
    CHECK(*load.cores() == doctest::Approx(0.9));
}

TEST_CASE("the pipeline threads' CPU time counts what each thread ran, after it finished too") {
    const TimeNs before = pipeline_threads_cpu_ns();
    const int threads_before = live_pipeline_threads();
    constexpr TimeNs kSpin = 50 * kNsPerMs;
    {
        PipelineThread spinning("cpu spinner", [] {
            const TimeNs start = thread_cpu_ns();
            while (thread_cpu_ns() - start < kSpin) {
            }
        });
    }  // joined
    CHECK(pipeline_threads_cpu_ns() - before >= kSpin);
    CHECK(live_pipeline_threads() == threads_before);
}

}  // namespace pinscope
