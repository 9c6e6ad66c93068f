// Metrics from hand-built traces whose answers are known, and the interval algebra under them.
#include <doctest/doctest.h>

#include <cmath>

#include "core/analysis/intervals.h"
#include "core/analysis/metrics.h"
#include "core/units/units.h"
#include "tests/spans.h"

using namespace pinscope;
using namespace pinscope::testing;

namespace {

// A store with the lanes of one host pipeline and two GPU streams.
struct Lanes {
    LaneRegistry registry;
    LaneId main = registry.lane(LaneRole::main);
    LaneId worker = registry.lane(LaneRole::worker, 0);
    LaneId h2d = registry.lane(LaneRole::h2d, 0);
    LaneId kernel0 = registry.lane(LaneRole::kernel, 0);
    LaneId kernel1 = registry.lane(LaneRole::kernel, 1);
    LaneId d2h = registry.lane(LaneRole::d2h, 0);

    TraceStore store() const {
        TraceStore s;
        s.set_lanes(registry.snapshot());
        return s;
    }
};

const StageLatency* latency_of(const Metrics& m, SpanKind kind) {
    for (const StageLatency& l : m.latencies)
        if (l.kind == kind) return &l;
    return nullptr;
}

}  // namespace

TEST_CASE("union, intersection, complement and difference of interval lists") {
    const IntervalList a = normalized({{30, 40}, {0, 10}, {5, 20}}, {0, 100});
    CHECK(a == IntervalList{{0, 20}, {30, 40}});
    const IntervalList b{{15, 35}};
    CHECK(union_of(a, b) == IntervalList{{0, 40}});
    CHECK(intersection(a, b) == IntervalList{{15, 20}, {30, 35}});
    CHECK(complement(a, {-10, 50}) == IntervalList{{-10, 0}, {20, 30}, {40, 50}});
    CHECK(difference(a, b) == IntervalList{{0, 15}, {35, 40}});
    CHECK(total_length(a) == 30);
}

TEST_CASE("normalized clips to the window and drops empty intervals") {
    CHECK(normalized({{-5, 5}, {7, 7}, {8, 20}}, {0, 10}) == IntervalList{{0, 5}, {8, 10}});
    CHECK(normalized({{20, 30}}, {0, 10}).empty());
    CHECK(normalized({{0, 5}, {5, 8}}, {0, 10}) == IntervalList{{0, 8}});  // touching intervals merge
}

TEST_CASE("gpu_busy is the union of kernel spans over the window") {
    Lanes lanes;
    TraceStore store = lanes.store();
    store.add(span(lanes.kernel0, SpanKind::kernel, 0, 100));
    store.add(span(lanes.kernel1, SpanKind::kernel, 50, 150));  // concurrent on another stream: counted once
    store.add(span(lanes.main, SpanKind::wait, 0, 200));
    const Metrics m = compute_metrics(store, 1);
    CHECK(m.start == 0);
    CHECK(m.end == 200);
    CHECK(m.gpu_busy == doctest::Approx(150.0 / 200));
}

TEST_CASE("overlap is copy time during kernels over kernel time") {
    Lanes lanes;
    TraceStore store = lanes.store();
    store.add(span(lanes.kernel0, SpanKind::kernel, 100, 200));
    store.add(span(lanes.h2d, SpanKind::h2d, 50, 150));   // 50 ns under the kernel
    store.add(span(lanes.d2h, SpanKind::d2h, 180, 250));  // 20 ns under the kernel
    store.add(span(lanes.d2h, SpanKind::d2h, 190, 195));  // inside the one above: not counted twice
    const Metrics m = compute_metrics(store, 1);
    CHECK(m.overlap == doctest::Approx(70.0 / 100));
}

TEST_CASE("overlap is 0 when no kernel ran") {
    Lanes lanes;
    TraceStore store = lanes.store();
    store.add(span(lanes.h2d, SpanKind::h2d, 0, 100, 0, 1000));
    const Metrics m = compute_metrics(store, 1);
    CHECK(m.overlap == 0);
    CHECK(m.gpu_busy == 0);
}

TEST_CASE("stall is train-loop waiting (or loading inline) while no kernel runs, over the window") {
    Lanes lanes;
    TraceStore store = lanes.store();
    store.add(span(lanes.main, SpanKind::wait, 0, 100));
    store.add(span(lanes.kernel0, SpanKind::kernel, 50, 80));  // the GPU is fed for 30 ns of the wait
    store.add(span(lanes.worker, SpanKind::wait, 100, 200));   // a worker waiting is not the train loop
    store.add(span(lanes.main, SpanKind::fetch, 150, 200));    // num_workers=0: loading inline stalls too
    const Metrics m = compute_metrics(store, 1);
    CHECK(m.end - m.start == 200);
    CHECK(m.stall == doctest::Approx((70.0 + 50.0) / 200));
}

TEST_CASE("GPU idle time splits by what held it up, and the causes add up to it") {
    Lanes lanes;
    TraceStore store = lanes.store();
    store.add(span(lanes.kernel0, SpanKind::kernel, 0, 100));
    store.add(span(lanes.main, SpanKind::wait, 50, 200));    // 100 ns idle: the loader
    store.add(span(lanes.main, SpanKind::stage, 200, 350));  // 150 ns: staging a pageable copy
    store.add(span(lanes.main, SpanKind::sync, 350, 400));   // blocked on the GPU ...
    store.add(span(lanes.kernel0, SpanKind::kernel, 380, 400));
    // ... 10 ns of it while a copy still ran (the GPU waited for the copy), 20 ns with none running.
    // The copy's first 150 ns are staging's: the train loop held it.
    store.add(span(lanes.h2d, SpanKind::h2d, 200, 360, 1, 100));  // copies do not make the GPU "busy"
    const Metrics m = compute_metrics(store, 1, {0, 500});
    CHECK(m.gpu_busy == doctest::Approx(120.0 / 500));
    CHECK(m.gpu_idle == doctest::Approx(380.0 / 500));
    CHECK(m.idle.loader == doctest::Approx(100.0 / 500));
    CHECK(m.idle.staging == doctest::Approx(150.0 / 500));
    CHECK(m.idle.copies == doctest::Approx(10.0 / 500));
    CHECK(m.idle.sync == doctest::Approx(20.0 / 500));
    CHECK(m.idle.other == doctest::Approx(100.0 / 500));  // 400..500: the train loop did nothing we know
    CHECK(m.idle.loader + m.idle.staging + m.idle.copies + m.idle.sync + m.idle.other ==
          doctest::Approx(m.gpu_idle));
    CHECK(m.stall == m.idle.loader);
    CHECK(m.h2d_busy == doctest::Approx(160.0 / 500));
    CHECK(m.copy_busy == doctest::Approx(160.0 / 500));
}

TEST_CASE("the GPU waiting for copies on a busy link is its own cause, whatever the train loop does") {
    Lanes lanes;
    TraceStore store = lanes.store();
    // A saturated link: copies back to back, each batch's short kernel after its copy.
    for (TimeNs t = 0; t < 1000; t += 100) {
        store.add(span(lanes.h2d, SpanKind::h2d, t, t + 100, t / 100, 1000, HostMemory::pinned));
        store.add(span(lanes.kernel0, SpanKind::kernel, t + 100, t + 110, t / 100));
    }
    store.add(span(lanes.main, SpanKind::sync, 0, 500));  // the train loop blocked on a full slot ...
    // ... then issuing (no span) from 500: the copies are what the GPU waits for either way.
    store.add(span(lanes.d2h, SpanKind::d2h, 1000, 1050, 9, 64));  // a D2H alone: the GPU waits for it too
    const Metrics m = compute_metrics(store, 1, {0, 1100});
    CHECK(m.idle.copies == doctest::Approx((1000.0 - 9 * 10 + 40) / 1100));  // 1000..1010 is a kernel
    CHECK(m.idle.sync == doctest::Approx(0.0));
    CHECK(m.idle.other == doctest::Approx(50.0 / 1100));  // 1050..1100: nothing running
    CHECK(m.idle.loader + m.idle.staging + m.idle.copies + m.idle.sync + m.idle.other ==
          doctest::Approx(m.gpu_idle));
}

TEST_CASE("overlapping train-loop spans count once, for the first cause") {
    Lanes lanes;
    TraceStore store = lanes.store();
    store.add(span(lanes.main, SpanKind::wait, 0, 100));
    store.add(span(lanes.main, SpanKind::sync, 50, 150));
    const Metrics m = compute_metrics(store, 1, {0, 200});
    CHECK(m.idle.loader == doctest::Approx(0.5));
    CHECK(m.idle.sync == doctest::Approx(0.25));
    CHECK(m.idle.other == doctest::Approx(0.25));
    CHECK(m.gpu_idle == doctest::Approx(1.0));
}

TEST_CASE(
    "sustained GB/s is bytes of copies ending in the window over its seconds - copy GB/s over their busy "
    "time") {
    Lanes lanes;
    TraceStore store = lanes.store();
    store.add(span(lanes.h2d, SpanKind::h2d, 100, 200, 0, 750'000'000, HostMemory::pinned));
    store.add(span(lanes.h2d, SpanKind::h2d, 300, 400, 1, 250'000'000, HostMemory::pageable));
    store.add(span(lanes.h2d, SpanKind::h2d, kNsPerS - 10, kNsPerS + 10, 2, 999,
                   HostMemory::pinned));  // ends after
    store.add(span(lanes.d2h, SpanKind::d2h, 500, 600, 0, 2'000'000'000));
    const Metrics m = compute_metrics(store, 1, {0, kNsPerS});
    CHECK(m.seconds == doctest::Approx(1.0));
    CHECK(m.h2d_bytes == 1'000'000'000);
    CHECK(m.h2d_sustained_gbps == doctest::Approx(1.0));
    CHECK(m.h2d_gbps == doctest::Approx(1e9 / 200.0));  // two copies of 100 ns each
    CHECK(m.d2h_bytes == 2'000'000'000);
    CHECK(m.d2h_sustained_gbps == doctest::Approx(2.0));
    CHECK(m.d2h_gbps == doctest::Approx(2e9 / 100.0));
    CHECK(m.pageable_h2d_fraction == doctest::Approx(0.25));
}

TEST_CASE("copy GB/s counts two copies that share the link over their common busy time once") {
    Lanes lanes;
    TraceStore store = lanes.store();
    const LaneId second = lanes.registry.lane(LaneRole::h2d, 1);
    store.set_lanes(lanes.registry.snapshot());
    store.add(span(lanes.h2d, SpanKind::h2d, 100, 300, 0, 400, HostMemory::pinned));
    store.add(span(second, SpanKind::h2d, 200, 400, 1, 400, HostMemory::pinned));
    const Metrics m = compute_metrics(store, 1, {0, 1000});
    CHECK(m.h2d_gbps == doctest::Approx(800.0 / 300));  // 800 bytes while some copy ran: 100..400
    CHECK(m.h2d_sustained_gbps == doctest::Approx(800.0 / 1000));
}

TEST_CASE("a batch in chunks counts once, when its last kernel chunk ends") {
    Lanes lanes;
    TraceStore store = lanes.store();
    store.add(span(lanes.kernel0, SpanKind::kernel, 10, 20, 0));
    store.add(span(lanes.kernel1, SpanKind::kernel, 15, 30, 0));
    store.add(span(lanes.kernel0, SpanKind::kernel, 30, 40, 1));
    store.add(span(lanes.kernel1, SpanKind::kernel, 100, 110, 1));  // batch 1 finishes after the window
    store.add(span(lanes.kernel0, SpanKind::kernel, 40, 45));       // no batch id: not a batch
    const Metrics window = compute_metrics(store, 32, {0, 50});
    CHECK(window.batches == 1);
    CHECK(window.samples == 32);
    CHECK(window.batches_per_s == doctest::Approx(1 / 50e-9));
    CHECK(window.samples_per_s == doctest::Approx(32 / 50e-9));
    const Metrics whole = compute_metrics(store, 32);
    CHECK(whole.batches == 2);
    CHECK(whole.samples == 64);
}

TEST_CASE("adjacent windows count each batch and byte once") {
    Lanes lanes;
    TraceStore store = lanes.store();
    for (int b = 0; b < 10; ++b) {
        store.add(span(lanes.h2d, SpanKind::h2d, b * 100, b * 100 + 50, b, 10));
        store.add(span(lanes.kernel0, SpanKind::kernel, b * 100 + 50, b * 100 + 100, b));
    }
    const Metrics first = compute_metrics(store, 1, {0, 500});
    const Metrics second = compute_metrics(store, 1, {500, 1000});
    CHECK(first.batches + second.batches == 10);
    CHECK(first.h2d_bytes + second.h2d_bytes == 100);
}

TEST_CASE("stage latencies are nearest-rank percentiles of span durations") {
    Lanes lanes;
    TraceStore store = lanes.store();
    for (int i = 1; i <= 100; ++i)  // durations 1..100 us, added out of duration order
        store.add(span(lanes.worker, SpanKind::fetch, i * 1000 * 1000,
                       i * 1000 * 1000 + ((i * 37) % 100 + 1) * 1000));
    store.add(span(lanes.h2d, SpanKind::h2d, 0, 10'000));
    store.add(span(lanes.h2d, SpanKind::h2d, 20'000, 40'000));
    const Metrics m = compute_metrics(store, 1, {0, 200 * kNsPerMs});

    const StageLatency* fetch = latency_of(m, SpanKind::fetch);
    REQUIRE(fetch != nullptr);
    CHECK(fetch->count == 100);
    CHECK(fetch->p50_us == doctest::Approx(50));  // rank ceil(0.50 * 100) = 50
    CHECK(fetch->p99_us == doctest::Approx(99));  // rank ceil(0.99 * 100) = 99
    CHECK(fetch->mean_us == doctest::Approx(50.5));

    const StageLatency* h2d = latency_of(m, SpanKind::h2d);
    REQUIRE(h2d != nullptr);
    CHECK(h2d->p50_us == doctest::Approx(10));  // rank ceil(0.50 * 2) = 1
    CHECK(h2d->p99_us == doctest::Approx(20));  // rank ceil(0.99 * 2) = 2
}

TEST_CASE("latencies list each span kind present, in SpanKind order") {
    Lanes lanes;
    TraceStore store = lanes.store();
    store.add(span(lanes.d2h, SpanKind::d2h, 0, 10));
    store.add(span(lanes.worker, SpanKind::fetch, 0, 10));
    store.add(span(lanes.kernel0, SpanKind::kernel, 0, 10));
    const Metrics m = compute_metrics(store, 1, {-1, 100});
    REQUIRE(m.latencies.size() == 3);
    CHECK(m.latencies[0].kind == SpanKind::fetch);
    CHECK(m.latencies[1].kind == SpanKind::kernel);
    CHECK(m.latencies[2].kind == SpanKind::d2h);
}

TEST_CASE("batch latency runs from a batch's first span to its last") {
    Lanes lanes;
    TraceStore store = lanes.store();
    store.add(span(lanes.worker, SpanKind::fetch, 0, 100, 0));
    store.add(span(lanes.h2d, SpanKind::h2d, 120, 150, 0));
    store.add(span(lanes.kernel0, SpanKind::kernel, 150, 300, 0));
    store.add(span(lanes.d2h, SpanKind::d2h, 300, 320, 0));
    store.add(span(lanes.worker, SpanKind::fetch, 100, 1100, 1));
    store.add(span(lanes.kernel0, SpanKind::kernel, 1100, 2100, 1));
    const Metrics m = compute_metrics(store, 1);
    CHECK(m.batch_latency.count == 2);
    CHECK(m.batch_latency.p50_us == doctest::Approx(0.32));
    CHECK(m.batch_latency.p99_us == doctest::Approx(2.0));
    CHECK(m.batch_latency.mean_us == doctest::Approx((0.32 + 2.0) / 2));
}

TEST_CASE("a window clips time fractions to its edges") {
    Lanes lanes;
    TraceStore store = lanes.store();
    store.add(span(lanes.kernel0, SpanKind::kernel, 0, 1000));
    store.add(span(lanes.kernel0, SpanKind::kernel, 1200, 1600));  // 300 ns inside, ends outside
    store.add(span(lanes.h2d, SpanKind::h2d, 400, 700, kNoBatch, 100));
    const Metrics m = compute_metrics(store, 1, {500, 1500});
    CHECK(m.start == 500);
    CHECK(m.end == 1500);
    CHECK(m.gpu_busy == doctest::Approx((500.0 + 300) / 1000));
    CHECK(m.overlap == doctest::Approx(200.0 / 800));
    CHECK(m.h2d_bytes == 100);  // ends at 700, inside: counted whole
    const StageLatency* kernel = latency_of(m, SpanKind::kernel);
    REQUIRE(kernel != nullptr);
    CHECK(kernel->count == 1);  // only the kernel that ends inside
}

TEST_CASE("counter maxima include the level in force when the window opens") {
    Lanes lanes;
    TraceStore store = lanes.store();
    store.add(CounterSample{0, 5, CounterKind::outstanding_batches});
    store.add(CounterSample{100, 2, CounterKind::outstanding_batches});
    store.add(CounterSample{200, 3, CounterKind::outstanding_batches});
    store.add(CounterSample{400, 9, CounterKind::outstanding_batches});  // after the window
    store.add(CounterSample{10, 4096, CounterKind::pinned_bytes});
    store.add(CounterSample{20, 2, CounterKind::reorder_depth});
    CHECK(compute_metrics(store, 1, {50, 300}).outstanding_max == 5);
    CHECK(compute_metrics(store, 1, {150, 300}).outstanding_max == 3);
    const Metrics whole = compute_metrics(store, 1);
    CHECK(whole.outstanding_max == 9);
    CHECK(whole.pinned_bytes_max == 4096);
    CHECK(whole.reorder_max == 2);
}

TEST_CASE("an empty store gives zeros without dividing by zero") {
    Lanes lanes;
    const TraceStore store = lanes.store();
    const Metrics m = compute_metrics(store, 64);
    CHECK(m.seconds == 0);
    CHECK(m.batches == 0);
    CHECK(m.samples_per_s == 0);
    CHECK(m.h2d_gbps == 0);
    CHECK(m.gpu_busy == 0);
    CHECK(m.overlap == 0);
    CHECK(m.stall == 0);
    CHECK(m.pageable_h2d_fraction == 0);
    CHECK(m.latencies.empty());
    CHECK(m.batch_latency.count == 0);
    CHECK(m.batch_latency.p50_us == 0);
}

TEST_CASE("a window of no length gives zero rates") {
    Lanes lanes;
    TraceStore store = lanes.store();
    store.add(span(lanes.kernel0, SpanKind::kernel, 0, 100, 0));
    store.add(span(lanes.h2d, SpanKind::h2d, 0, 50, 0, 100));
    for (MetricsWindow window : {MetricsWindow{50, 50}, MetricsWindow{80, 20}}) {
        const Metrics m = compute_metrics(store, 8, window);
        CHECK(m.seconds == 0);
        CHECK(m.samples_per_s == 0);
        CHECK(m.h2d_gbps == 0);
        CHECK(m.gpu_busy == 0);
        CHECK(std::isfinite(m.stall));
    }
}

TEST_CASE("every fraction stays within 0 and 1") {
    Lanes lanes;
    TraceStore store = lanes.store();
    uint64_t seed = 12345;
    const auto next = [&seed](uint64_t range) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        return static_cast<TimeNs>((seed >> 33) % range);
    };
    const LaneId all[] = {lanes.main, lanes.worker, lanes.h2d, lanes.kernel0, lanes.kernel1, lanes.d2h};
    for (int i = 0; i < 2000; ++i) {
        const LaneId lane = all[next(6)];
        const auto kind = static_cast<SpanKind>(next(kSpanKindCount));
        const TimeNs start = next(100'000);
        const auto memory = next(2) ? HostMemory::pageable : HostMemory::pinned;
        store.add(span(lane, kind, start, start + next(5'000), next(50), static_cast<uint64_t>(next(1 << 20)),
                       memory));
    }
    for (MetricsWindow window :
         {MetricsWindow{}, MetricsWindow{10'000, 20'000}, MetricsWindow{-50, 200'000}}) {
        const Metrics m = compute_metrics(store, 4, window);
        for (double f : {m.gpu_busy, m.overlap, m.stall, m.pageable_h2d_fraction}) {
            CHECK(f >= 0);
            CHECK(f <= 1);
        }
        CHECK(m.gpu_busy > 0);
        CHECK(m.overlap > 0);
    }
}

TEST_CASE("units read as people write them: memory in MiB, bandwidth in GB/s, shares in percent") {
    CHECK(format_bytes(512) == "512 B");
    CHECK(format_bytes(38'535'168) == "36.8 MiB");  // a 64 x 3x224x224 float batch
    CHECK(format_bytes(3.0 * (1 << 30)) == "3.00 GiB");
    CHECK(format_rate(12.34e9) == "12.3 GB/s");
    CHECK(format_gbps(0.85) == "850 MB/s");
    CHECK(format_count(1234567) == "1,234,567");
    CHECK(format_count(-1000) == "-1,000");
    CHECK(format_short_count(950) == "950");
    CHECK(format_short_count(15'080) == "15.1k");
    CHECK(format_short_count(1'234'567) == "1.23M");
    CHECK(format_duration(1'500'000) == "1.50 ms");
    CHECK(format_share(0.17) == "17%");
    CHECK(format_share(0.017) == "1.7%");
    CHECK(link_peak_label(53.44) == "pinned H2D peak 53.4 GB/s");
}
