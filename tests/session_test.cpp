// A whole pipeline on the simulated GPU: the train loop's copies and streams, what the trace shows,
// and the session's life cycle (bounds, failures, live reconfiguration, clean shutdown).
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "core/analysis/metrics.h"
#include "core/device/calibration.h"
#include "core/device/sim/pageable_staging.h"
#include "core/lab/measured_run.h"
#include "core/pipeline/session.h"
#include "tests/leak_checks.h"
#include "tests/sim_configs.h"

using namespace pinscope;
using namespace pinscope::testing;

namespace {

struct Finished {
    SessionStatus status;
    TraceStore store;
    DeviceResources resources;
};

// Runs `config` to its end and collects everything it recorded.
Finished run(const PipelineConfig& config) {
    Session session(config);
    Finished f;
    session.start();
    while (!session.wait(50 * kNsPerMs)) session.trace().collect(f.store);
    session.trace().collect(f.store);
    f.status = session.status();
    f.resources = session.device_resources();
    return f;
}

std::vector<Span> spans_of(const TraceStore& store, SpanKind kind, std::optional<LaneRole> lane_kind = {}) {
    std::vector<Span> found;
    for (const LaneInfo& lane : store.lanes())
        if (!lane_kind || lane.role == *lane_kind)
            for (const Span& s : store.spans(lane.id))
                if (s.kind == kind) found.push_back(s);
    std::sort(found.begin(), found.end(), [](const Span& a, const Span& b) { return a.start < b.start; });
    return found;
}

}  // namespace

TEST_CASE("a session runs exactly to its batch bound and leaves nothing behind") {
    const ThreadCount threads;
    Finished f = run(tiny_run(30));
    CHECK(f.status.state == SessionState::finished);
    CHECK(f.status.batches == 30);
    CHECK(f.status.generation == 1);
    CHECK(spans_of(f.store, SpanKind::kernel).size() == 30);
    CHECK(threads.threads_back());
    check_nothing_held(f.resources);
}

TEST_CASE("every GPU span carries the id of a batch the loader built") {
    Finished f = run(tiny_run(20));
    std::set<int64_t> fetched;
    for (const Span& s : spans_of(f.store, SpanKind::fetch)) fetched.insert(s.batch);
    for (SpanKind kind : {SpanKind::h2d, SpanKind::kernel, SpanKind::d2h})
        for (const Span& s : spans_of(f.store, kind)) CHECK(fetched.count(s.batch) == 1);
}

TEST_CASE("the outstanding-batches counter never exceeds prefetch_factor * num_workers") {
    PipelineConfig config = tiny_run(60);
    config.num_workers = 3;
    config.prefetch_factor = 2;
    config.kernel_us = 2000;  // a slow GPU: the loader fills up to its cap
    Finished f = run(config);
    double highest = 0;
    for (const CounterSample& s : f.store.counters(CounterKind::outstanding_batches))
        highest = std::max(highest, s.value);
    CHECK(highest == 6);
}

TEST_CASE("a pageable H2D shows staging time on the host thread that issued it") {
    PipelineConfig config = tiny_run(20);
    config.pin_memory = false;
    Finished f = run(config);
    const auto h2d = spans_of(f.store, SpanKind::h2d);
    const auto staged = spans_of(f.store, SpanKind::stage, LaneRole::main);
    REQUIRE(h2d.size() == 20);
    for (const Span& s : h2d) CHECK(s.memory == HostMemory::pageable);
    // Each pageable H2D held the train loop for the whole copy but its last chunk's DMA, which CUDA
    // (and the simulated GPU) runs after the call returns, at the pinned rate.
    const double last_chunk =
        std::min<double>(static_cast<double>(config.batch_bytes()), PageableStaging::kChunkBytes);
    const auto last_chunk_dma =
        static_cast<TimeNs>(builtin_calibration().h2d_pinned.seconds(last_chunk) * 1e9);
    std::map<int64_t, Span> stage_of_batch;
    for (const Span& s : staged)
        if (s.bytes == static_cast<uint64_t>(config.batch_bytes())) stage_of_batch[s.batch] = s;
    for (const Span& copy : h2d) {
        REQUIRE(stage_of_batch.count(copy.batch));
        const Span& held = stage_of_batch[copy.batch];
        CHECK(held.memory == HostMemory::pageable);
        CHECK(held.start <= copy.start);
        CHECK(held.end >= copy.end - last_chunk_dma);
    }
}

TEST_CASE("with pin_memory and non_blocking, H2D copies are pinned and do not hold the host") {
    Finished f = run(tiny_run(20));
    for (const Span& s : spans_of(f.store, SpanKind::h2d)) CHECK(s.memory == HostMemory::pinned);
    CHECK(spans_of(f.store, SpanKind::stage).empty());
}

TEST_CASE("with 64 MiB batches, pinned H2D moves at least 4x the GB/s of pageable") {
    double gbps[2];
    for (bool pinned : {false, true}) {
        PipelineConfig config = tiny_run(4);
        config.batch_size = 1;
        config.sample_shape.dims = {1, 4096, 4096};  // 16 Mi floats: 64 MiB a batch
        config.pin_memory = pinned;
        config.pin_mode = PinMode::direct;
        Finished f = run(config);
        const Metrics m = compute_metrics(f.store, config.batch_size);
        REQUIRE(m.h2d_bytes == 4 * (64u << 20));
        gbps[pinned] = m.h2d_gbps;
    }
    CAPTURE(gbps[0]);
    CAPTURE(gbps[1]);
    CHECK(gbps[1] >= 4 * gbps[0]);
}

TEST_CASE("chunks split each batch over the streams, on every stream in issue order") {
    PipelineConfig config = tiny_run(6);
    config.streams = 2;
    config.chunks = 4;
    Finished f = run(config);
    const auto h2d = spans_of(f.store, SpanKind::h2d);
    REQUIRE(h2d.size() == 6 * 4);
    std::map<int64_t, uint64_t> bytes_of_batch;
    std::set<LaneId> lanes;
    for (const Span& s : h2d) {
        bytes_of_batch[s.batch] += s.bytes;
        lanes.insert(s.lane);
    }
    CHECK(lanes.size() == 2);
    for (auto [batch, bytes] : bytes_of_batch) CHECK(bytes == static_cast<uint64_t>(config.batch_bytes()));
    CHECK(spans_of(f.store, SpanKind::kernel).size() == 6 * 4);
}

TEST_CASE(
    "issue order: per chunk interleaves H2D and kernels on a stream - copies-first does all copies first") {
    for (IssueOrder order : {IssueOrder::per_chunk, IssueOrder::copies_first}) {
        CAPTURE(to_string(order));
        PipelineConfig config = tiny_run(1);
        config.streams = 1;
        config.chunks = 3;
        config.issue_order = order;
        Finished f = run(config);
        std::vector<Span> ops;
        for (SpanKind kind : {SpanKind::h2d, SpanKind::kernel, SpanKind::d2h})
            for (const Span& s : spans_of(f.store, kind)) ops.push_back(s);
        std::sort(ops.begin(), ops.end(), [](const Span& a, const Span& b) { return a.start < b.start; });
        std::string sequence;
        for (const Span& s : ops)
            sequence += s.kind == SpanKind::h2d ? 'H' : s.kind == SpanKind::kernel ? 'K' : 'D';
        CHECK(sequence == (order == IssueOrder::per_chunk ? "HKDHKDHKD" : "HHHKKKDDD"));
    }
}

TEST_CASE("at most streams + 1 batches are in flight on the GPU") {
    PipelineConfig config = tiny_run(20);
    config.streams = 2;
    config.kernel_us = 5000;  // long enough that the loader is always ahead of the GPU
    Finished f = run(config);
    // In flight: from a batch's first H2D start to its last D2H end. Count the most at any time.
    std::map<int64_t, std::pair<TimeNs, TimeNs>> life;
    for (SpanKind kind : {SpanKind::h2d, SpanKind::kernel, SpanKind::d2h})
        for (const Span& s : spans_of(f.store, kind)) {
            auto [it, fresh] = life.try_emplace(s.batch, s.start, s.end);
            if (!fresh)
                it->second = {std::min(it->second.first, s.start), std::max(it->second.second, s.end)};
        }
    std::vector<std::pair<TimeNs, int>> edges;
    for (auto& [batch, range] : life) edges.push_back({range.first, +1}), edges.push_back({range.second, -1});
    std::sort(edges.begin(), edges.end());
    int in_flight = 0, most = 0;
    for (auto [t, delta] : edges) most = std::max(most, in_flight += delta);
    CHECK(most <= config.streams + 1);
    CHECK(most >= 2);  // and the host does run ahead of the GPU
}

TEST_CASE("a worker's error fails the session with PyTorch's message") {
    PipelineConfig config = tiny_run(0);
    config.seconds = 30;
    config.fail_at_sample = 20;  // in batch 2, built by worker 0
    Finished f = run(config);
    CHECK(f.status.state == SessionState::failed);
    CHECK(f.status.error ==
          "Caught ValueError in DataLoader worker process 0. Original: sample 20 is corrupt "
          "(fail_at_sample=20)");
    check_nothing_held(f.resources);
}

TEST_CASE("stop() interrupts a pipeline stuck in a slow batch") {
    PipelineConfig config = tiny_run(0);
    config.seconds = 0;
    config.io_us = 1e6;  // a second per sample: a batch would take 8 s on 2 workers
    const ThreadCount threads;
    Session session(config);
    session.start();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    session.stop();
    CHECK(session.status().state == SessionState::stopped);
    CHECK(threads.threads_back());
    check_nothing_held(session.device_resources());
}

TEST_CASE("stop() ends a session whose kernel would run 10 s at once, the kernel cut, nothing held") {
    PipelineConfig config = tiny_run(0);
    config.seconds = 0;
    config.kernel_us = 10e6;
    const ThreadCount threads;
    Session session(config);
    session.start();
    // Wait for the first batch to reach the GPU (slow under TSan), then give its small copy time to
    // finish so that the 10 s kernel is the work in hand.
    const TimeNs give_up = now_ns() + 20 * kNsPerS;
    while (session.status().batches < 1 && now_ns() < give_up)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    REQUIRE(session.status().batches >= 1);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const TimeNs asked = now_ns();
    session.stop();
    CHECK(now_ns() - asked < 2 * kNsPerS);  // the kernel alone had nearly 10 s to go
    CHECK(session.status().state == SessionState::stopped);
    TraceStore store;
    session.trace().collect(store);
    const std::vector<Span> kernels = spans_of(store, SpanKind::kernel);
    REQUIRE_FALSE(kernels.empty());
    CHECK(kernels.front().cut);
    CHECK(threads.threads_back());
    check_nothing_held(session.device_resources());
}

TEST_CASE("a session ends at its seconds whatever its work in hand, paused or not, the work cut") {
    for (const bool paused : {false, true}) {
        CAPTURE(paused);
        PipelineConfig config = tiny_run(0);
        // 2 s leaves the first batch time to reach the GPU even under ThreadSanitizer on a busy machine
        // (at 0.5 s it once had not, and there was no kernel to cut).
        config.seconds = 2;
        config.kernel_us = 10e6;
        Session session(config);
        session.set_paused(paused);
        if (paused) session.step();  // one batch, whose kernel outlasts the run
        session.start();
        CHECK(session.wait(10 * kNsPerS));
        const SessionStatus status = session.status();
        CHECK(status.state == SessionState::finished);
        CHECK(status.elapsed < static_cast<TimeNs>(4 * kNsPerS));
        TraceStore store;
        session.trace().collect(store);
        const std::vector<Span> kernels = spans_of(store, SpanKind::kernel);
        REQUIRE_FALSE(kernels.empty());
        CHECK(kernels.back().cut);
        CHECK(kernels.back().end <= status.started + static_cast<TimeNs>(3 * kNsPerS));
    }
}

TEST_CASE("an invalid reconfiguration is refused and the pipeline keeps running") {
    PipelineConfig config = tiny_run(0);
    config.seconds = 0;
    Session session(config);
    session.start();
    PipelineConfig bad = config;
    bad.num_workers = -1;
    CHECK_THROWS_WITH_AS(session.reconfigure(bad),
                         doctest::Contains("num_workers option should be non-negative"),
                         std::invalid_argument);
    // The first pipeline is built on the session's thread; under ThreadSanitizer on a slow host that can
    // take longer than any fixed sleep, so wait for it (or 10 s), then let the refused edit have its chance.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (session.status().generation == 0 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    CHECK(session.status().state == SessionState::running);
    CHECK(session.status().generation == 1);  // the refused config built no new pipeline
    session.stop();
}

TEST_CASE("reconfiguring a running pipeline 200 times: no deadlock, buffers and threads return to 0") {
    PipelineConfig config = tiny_run(0);
    config.seconds = 0;
    const ThreadCount threads;
    Session session(config);
    session.start();
    std::mt19937 random(7);
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(random); };
    PipelineConfig last;
    for (int i = 0; i < 200; ++i) {
        PipelineConfig next = config;
        next.num_workers = pick(0, 4);
        next.prefetch_factor =
            next.num_workers > 0 && pick(0, 1) ? std::optional<int>(pick(1, 3)) : std::nullopt;
        next.pin_memory = pick(0, 1);
        next.pin_mode = pick(0, 1) ? PinMode::thread : PinMode::direct;
        next.non_blocking = pick(0, 1);
        next.in_order = pick(0, 1);
        next.streams = pick(1, 3);
        next.chunks = pick(1, 3);
        next.io_us = pick(0, 1) * 100;
        session.reconfigure(next);
        last = next;
        std::this_thread::sleep_for(std::chrono::microseconds(pick(0, 3000)));
        REQUIRE(session.status().state == SessionState::running);
    }
    // The last config is applied and runs; the ones in between were applied or coalesced. The bound is
    // a hang detector, not a speed check (sanitizer builds are many times slower).
    const TimeNs deadline = now_ns() + 60 * kNsPerS;
    const int64_t batches_before = session.status().batches;
    while ((session.status().config != last || session.status().batches <= batches_before) &&
           now_ns() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const SessionStatus status = session.status();
    CHECK(status.config == last);
    CHECK(status.generation >= 2);
    CHECK(status.batches > batches_before);
    session.stop();
    CHECK(threads.threads_back());
    check_nothing_held(session.device_resources());
}

TEST_CASE("a paused session takes no new batch, a step lets exactly one through, and stop still ends it") {
    PipelineConfig config = tiny_run(0);
    config.seconds = 0;  // unbounded: only stop() ends it
    Session session(config);
    session.start();
    auto batches = [&] { return session.status().batches; };
    auto wait_for = [&](auto done) {
        for (int i = 0; i < 2000 && !done(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        return done();
    };
    REQUIRE(wait_for([&] { return batches() >= 3; }));

    session.set_paused(true);
    CHECK(session.paused());
    // A batch already past the gate may still be handed over; after that the count holds.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const int64_t held = batches();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    CHECK(batches() == held);

    session.step();
    CHECK(wait_for([&] { return batches() == held + 1; }));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    CHECK(batches() == held + 1);

    session.stop();  // wakes the paused train loop
    CHECK(session.status().state == SessionState::stopped);

    Session resumed(config);
    resumed.start();
    resumed.set_paused(true);
    resumed.set_paused(false);
    CHECK(wait_for([&] { return resumed.status().batches >= 3; }));
    resumed.stop();
}

namespace {

// The naive benchmark on the simulated GPU, of a small batch, non_blocking as the published script has it.
PipelineConfig naive_on_sim(bool pinned, bool spawned_child = false) {
    PipelineConfig config = on_sim();
    config.naive_benchmark = true;
    config.spawned_child = spawned_child;
    config.pin_memory = pinned;
    config.non_blocking = true;
    config.batch_size = 8;
    return config;
}

}  // namespace

TEST_CASE("a naive benchmark's pageable stopwatch holds the CUDA context, a pinned one's starts after it") {
    for (const bool pinned : {false, true}) {
        CAPTURE(pinned);
        const PipelineConfig config = naive_on_sim(pinned);
        MeasuredRun run(config);
        run.run();
        CHECK(run.session().status().state == SessionState::finished);
        CHECK(run.session().status().batches == 1);
        const TraceCollector::Snapshot snapshot = run.trace();
        const TraceStore& store = snapshot.store();
        std::vector<Span> stopwatches, contexts, allocations, copies;
        for (const LaneInfo& lane : store.lanes())
            for (const Span& s : store.spans(lane.id)) {
                if (s.kind == SpanKind::stopwatch) {
                    stopwatches.push_back(s);
                    CHECK(lane.name == "stopwatch");
                }
                if (s.kind == SpanKind::startup && store.name(s.name).starts_with("CUDA context"))
                    contexts.push_back(s);
                if (s.kind == SpanKind::startup && store.name(s.name).starts_with("cudaHostAlloc"))
                    allocations.push_back(s);
                if (s.kind == SpanKind::h2d) copies.push_back(s);
            }
        REQUIRE(stopwatches.size() == 1);
        REQUIRE(contexts.size() == 1);
        REQUIRE(copies.size() == 1);
        const Span& stopwatch = stopwatches.front();
        const Span& context = contexts.front();
        CHECK(context.duration() >= static_cast<TimeNs>(builtin_calibration().context_create_s * 1e9));
        if (pinned) {
            // Pinning made the context and a fresh cudaHostAlloc, both before the stopwatch started.
            CHECK(allocations.size() == 1);
            CHECK(context.end <= stopwatch.start);
            CHECK(allocations.front().end <= stopwatch.start);
            CHECK(stopwatch.duration() < context.duration());
        } else {
            CHECK(allocations.empty());
            CHECK(context.start >= stopwatch.start);
            CHECK(context.end <= stopwatch.end);
        }
        CHECK(copies.front().start >= stopwatch.start);
        const Metrics metrics = run.metrics();
        CHECK(metrics.stopwatch_s == doctest::Approx(ns_to_s(stopwatch.duration())));
        CHECK(metrics.startup_s >= ns_to_s(context.duration()));
        CHECK(run.session().device_resources().host_buffers == 0);
    }
}

TEST_CASE("a cold start draws the context and each fresh pinned buffer as start-up, before metrics count") {
    PipelineConfig config = on_sim();
    config.cold_start = true;
    config.pin_memory = true;
    config.num_workers = 2;
    config.batches = 6;
    config.seconds = 0;
    MeasuredRun run(config);
    run.run();
    const TraceCollector::Snapshot snapshot = run.trace();
    const TraceStore& store = snapshot.store();
    int contexts = 0, pins = 0;
    for (const LaneInfo& lane : store.lanes())
        for (const Span& s : store.spans(lane.id))
            if (s.kind == SpanKind::startup) {
                const std::string_view name = store.name(s.name);
                contexts += name.starts_with("CUDA context");
                pins += name.starts_with("cudaHostAlloc");
                CHECK(lane.group == LaneGroup::host);
            }
    CHECK(contexts == 1);
    CHECK(pins >= 1);
    const Metrics metrics = run.metrics();
    CHECK(metrics.batches > 0);
    CHECK(metrics.startup_s >= builtin_calibration().context_create_s);
    CHECK(run.window().start > store.first_time());  // the measured window starts at the first batch
}

TEST_CASE(
    "a tensor pinned in a parent reaches a spawned child unpinned, and the child makes its own context") {
    MeasuredRun run(naive_on_sim(/*pinned=*/true, /*spawned_child=*/true));
    run.run();
    REQUIRE(run.session().status().state == SessionState::finished);
    const TraceCollector::Snapshot snapshot = run.trace();
    const TraceStore& store = snapshot.store();
    std::map<std::string, std::vector<Span>> contexts_by_lane, stages_by_lane;
    std::vector<Span> stopwatches, pins;
    for (const LaneInfo& lane : store.lanes())
        for (const Span& s : store.spans(lane.id)) {
            const std::string_view name = store.name(s.name);
            if (s.kind == SpanKind::startup && name.starts_with("CUDA context"))
                contexts_by_lane[lane.name].push_back(s);
            if (s.kind == SpanKind::startup && name.starts_with("cudaHostAlloc")) pins.push_back(s);
            if (s.kind == SpanKind::stage) stages_by_lane[lane.name].push_back(s);
            if (s.kind == SpanKind::stopwatch) stopwatches.push_back(s);
        }
    // The parent paid a context and a pinned allocation; the child its own context, inside its stopwatch,
    // and staged the copy from pageable memory.
    REQUIRE(contexts_by_lane["train loop"].size() == 1);
    REQUIRE(contexts_by_lane["spawned child"].size() == 1);
    CHECK(pins.size() == 1);
    REQUIRE(stages_by_lane["spawned child"].size() == 1);
    CHECK(stages_by_lane["spawned child"].front().memory == HostMemory::pageable);
    REQUIRE(stopwatches.size() == 1);
    CHECK(stopwatches.front().memory == HostMemory::pageable);
    const Span& child_context = contexts_by_lane["spawned child"].front();
    CHECK(child_context.start >= stopwatches.front().start);
    CHECK(child_context.end <= stopwatches.front().end);
    CHECK(contexts_by_lane["train loop"].front().end <= stopwatches.front().start);
}

// transfer_dtype uint8 on the simulated GPU: a quarter of float32's bytes cross the link, and each batch's
// compute kernel follows a normalize kernel as long as the calibration's figures say.
TEST_CASE("a uint8 session copies a quarter of the bytes and normalises each batch on the GPU first") {
    PipelineConfig config = tiny_run(12);
    config.transfer_dtype = TransferDtype::uint8;
    config.sample_shape.dims = {3, 64, 64};
    const Finished f = run(config);
    REQUIRE(f.status.state == SessionState::finished);
    const std::vector<Span> copies = spans_of(f.store, SpanKind::h2d);
    REQUIRE(copies.size() == 12);
    for (const Span& s : copies) CHECK(s.bytes == 8u * 3 * 64 * 64);  // a byte a pixel
    const std::vector<Span> kernels = spans_of(f.store, SpanKind::kernel);
    REQUIRE(kernels.size() == 24);
    const Calibration& calibration = builtin_calibration();
    const double normalize_us = calibration.normalize_seconds(8.0 * 3 * 64 * 64) * 1e6;
    std::map<int64_t, std::vector<Span>> by_batch;
    for (const Span& s : kernels) by_batch[s.batch].push_back(s);
    REQUIRE(by_batch.size() == 12);
    for (const auto& [batch, pair] : by_batch) {
        REQUIRE(pair.size() == 2);
        CHECK(static_cast<double>(pair[0].duration()) / kNsPerUs ==
              doctest::Approx(normalize_us).epsilon(0.05));
        CHECK(static_cast<double>(pair[1].duration()) / kNsPerUs ==
              doctest::Approx(config.kernel_us).epsilon(0.05));
        CHECK(pair[1].start >= pair[0].end);
    }
    check_nothing_held(f.resources);
}
