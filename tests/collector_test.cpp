// The collector thread owns the store; readers take snapshots. Run under ThreadSanitizer by `make test`.
#include <doctest/doctest.h>

#include <atomic>
#include <optional>
#include <thread>

#include "core/analysis/metrics.h"
#include "core/pipeline/session.h"
#include "core/trace/trace_collector.h"
#include "tests/sim_configs.h"

using namespace pinscope;

namespace {

// Every lane sorted by start, and the count the store reports is the count it holds.
bool consistent(const TraceStore& store) {
    size_t held = 0;
    for (const LaneInfo& lane : store.lanes()) {
        const std::span<const Span> spans = store.spans(lane.id);
        held += spans.size();
        for (size_t i = 1; i < spans.size(); ++i)
            if (spans[i - 1].start > spans[i].start) return false;
    }
    return held == store.span_count();
}

}  // namespace

TEST_CASE("flush returns once everything recorded before it is in the collector's store") {
    Trace trace;
    CollectorOptions only_flush_collects;
    only_flush_collects.period = 10 * kNsPerS;
    TraceCollector collector(trace, only_flush_collects);
    const LaneId lane = trace.lanes().lane(LaneRole::main);
    std::shared_ptr<Recorder> recorder = trace.make_recorder();
    for (int i = 0; i < 100; ++i) recorder->span(Span{i * 10, i * 10 + 5, i, 0, lane, SpanKind::fetch});
    collector.flush();
    CHECK(collector.read()->span_count() == 100);
    CHECK(collector.collections() >= 1);
}

TEST_CASE("the collector evicts only what it is allowed to, in large steps") {
    Trace trace;
    CollectorOptions options;
    options.period = 10 * kNsPerS;
    options.evict_at_least = 1000;
    TraceCollector collector(trace, options);
    const LaneId lane = trace.lanes().lane(LaneRole::main);
    std::shared_ptr<Recorder> recorder = trace.make_recorder();
    for (int i = 0; i < 100; ++i) recorder->span(Span{i * 100, i * 100 + 50, i, 0, lane, SpanKind::fetch});
    collector.allow_eviction_before(500);  // frees less than evict_at_least: not worth a pass
    collector.flush();
    CHECK(collector.read()->span_count() == 100);
    collector.allow_eviction_before(5000);
    collector.flush();
    CHECK(collector.read()->span_count() == 50);
    CHECK(collector.read()->first_time() == 5000);
}

TEST_CASE("a live session's collector inserts late spans while another thread reads snapshots and metrics") {
    const PipelineConfig config = testing::tiny_run(0);  // until stopped
    Session session(config);
    std::atomic<int> metrics_read{0}, inconsistent{0};
    std::atomic<bool> done{false};
    {
        CollectorOptions often;
        often.period = 2 * kNsPerMs;
        TraceCollector collector(session.trace(), often);
        session.start();
        // A second producer whose spans arrive late and out of order, as CUPTI's do.
        std::thread late([&] {
            std::shared_ptr<Recorder> recorder = session.trace().make_recorder();
            const LaneId lane = session.trace().lanes().lane(LaneRole::kernel, 7);
            while (!done) {
                const TimeNs now = now_ns();
                for (int k = 5; k > 0; --k)  // newest first: every one after the first is late
                    recorder->span(Span{now - k * kNsPerMs, now - k * kNsPerMs + 200 * kNsPerUs, -1, 0, lane,
                                        SpanKind::kernel});
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
        });
        std::thread reader([&] {
            while (!done) {
                const TraceCollector::Snapshot snapshot = collector.read();
                const TraceStore& store = snapshot.store();
                if (!consistent(store)) ++inconsistent;
                const TimeNs end = store.latest_span_end();
                const Metrics m = compute_metrics(store, config.batch_size, {end - 200 * kNsPerMs, end});
                if (m.gpu_busy < 0 || m.gpu_busy > 1 || m.overlap < 0 || m.overlap > 1) ++inconsistent;
                ++metrics_read;
            }
        });
        std::this_thread::sleep_for(std::chrono::milliseconds(2200));
        done = true;
        late.join();
        reader.join();
        session.stop();
        collector.flush();
        CHECK(consistent(collector.read().store()));
        CHECK(collector.read()->span_count() > 1000);
    }
    MESSAGE(metrics_read.load() << " snapshots read and measured while the collector wrote");
    CHECK(inconsistent == 0);
    CHECK(metrics_read > 10);
}

TEST_CASE("with a collector attached, a full ring waits for it: nothing is dropped and the wait is a span") {
    Trace trace;
    TraceCollector collector(trace);
    const LaneId lane = trace.lanes().lane(LaneRole::main);
    std::shared_ptr<Recorder> recorder = trace.make_recorder();
    constexpr int kSpans = 3 * Recorder::kDefaultSpanCapacity;
    TimeNs released = 0;
    {
        // A reader holding a snapshot keeps the collector from writing: the producer's ring fills.
        std::optional<TraceCollector::Snapshot> held;
        held.emplace(collector.read());
        std::thread producer([&] {
            this_thread_lane() = lane;
            for (int i = 0; i < kSpans; ++i)
                recorder->span(Span{i * 10, i * 10 + 5, i, 0, lane, SpanKind::fetch});
        });
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        released = now_ns();
        held.reset();
        producer.join();
    }
    collector.flush();
    const TraceCollector::Snapshot snapshot = collector.read();
    CHECK(trace.dropped() == 0);
    size_t fetches = 0, waits = 0;
    TimeNs latest_wait_end = 0;
    for (const Span& s : snapshot->spans(lane)) {
        fetches += s.kind == SpanKind::fetch;
        if (s.kind == SpanKind::tracing) ++waits, latest_wait_end = std::max(latest_wait_end, s.end);
    }
    CHECK(fetches == kSpans);
    CHECK(waits >= 1);
    CHECK(latest_wait_end >= released);  // the producer waited until the reader let go, and says so
}

TEST_CASE("without a collector a full ring drops and counts, never blocks") {
    Trace trace;
    const LaneId lane = trace.lanes().lane(LaneRole::main);
    std::shared_ptr<Recorder> recorder = trace.make_recorder();
    for (size_t i = 0; i < Recorder::kDefaultSpanCapacity + 10; ++i)
        recorder->span(Span{0, 1, 0, 0, lane, SpanKind::fetch});
    CHECK(trace.dropped() == 10);
}
