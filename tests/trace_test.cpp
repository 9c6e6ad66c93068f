// The trace model: lock-free recording, collection into a sorted store, bounded memory, lanes.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <random>
#include <thread>

#include "core/trace/clock.h"
#include "core/trace/lanes.h"
#include "core/trace/recorder.h"
#include "core/trace/spsc_ring.h"
#include "core/trace/trace.h"
#include "core/trace/trace_store.h"
#include "core/trace/trace_tap.h"

using namespace pinscope;

namespace {

Span span_at(LaneId lane, TimeNs start, TimeNs end, int64_t batch = kNoBatch) {
    Span span;
    span.lane = lane;
    span.start = start;
    span.end = end;
    span.batch = batch;
    return span;
}

std::vector<TimeNs> starts(std::span<const Span> spans) {
    std::vector<TimeNs> result;
    for (const Span& s : spans) result.push_back(s.start);
    return result;
}

}  // namespace

TEST_CASE("an OnCoreClock counts a sleep as time off the core, all of it") {
    OnCoreClock clock;
    const TimeNs before_sleep = clock.last();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    const TimeNs off = clock.tick();
    CHECK(off >= 2 * kNsPerMs);                 // asleep, the thread was off its core all along
    CHECK(off == clock.last() - before_sleep);  // the whole gap between the two readings, no more
    // Two readings with nothing between them are nanoseconds apart: no time off the core (the least of
    // three, should a preemption fall between two of them).
    CHECK(std::min({clock.tick(), clock.tick(), clock.tick()}) == 0);
}

TEST_CASE("a full SpscRing refuses pushes and hands out what it holds in order") {
    SpscRing<int> ring(4);
    CHECK(ring.capacity() == 4);
    for (int i = 0; i < 4; ++i) CHECK(ring.push(i));
    CHECK_FALSE(ring.push(99));
    std::vector<int> drained;
    CHECK(ring.drain([&](int v) { drained.push_back(v); }) == 4);
    CHECK(drained == std::vector<int>{0, 1, 2, 3});
    CHECK(ring.empty());
    CHECK(ring.push(5));  // room again once drained
}

TEST_CASE("SpscRing rounds its capacity up to a power of two") {
    SpscRing<int> ring(5);
    CHECK(ring.capacity() == 8);
}

TEST_CASE("a Recorder counts every span and sample its full rings drop") {
    Recorder recorder(4, 2);
    for (int i = 0; i < 6; ++i) recorder.span(span_at(0, i, i + 1));
    for (int i = 0; i < 3; ++i) recorder.counter(CounterKind::reorder_depth, i, i);
    CHECK(recorder.dropped() == 2 + 1);
    size_t spans = 0, samples = 0;
    recorder.drain([&](const Span&) { ++spans; }, [&](const CounterSample&) { ++samples; });
    CHECK(spans == 4);
    CHECK(samples == 2);
    CHECK(recorder.empty());
}

TEST_CASE("a waiting recorder keeps its wait span when a collection frees only one slot") {
    // A consumer can read the ring's head while it holds one span, be held up, and free only that slot
    // while the producer filled the rest and began to wait (seen under ThreadSanitizer on CI). The span
    // the producer waited to record takes that slot; the wait span must then wait too, not be dropped.
    auto signal = std::make_shared<CollectionSignal>();
    std::atomic<int> wakes{0}, collections_wanted{0};
    signal->attach([&] { ++wakes; });
    Recorder recorder(4, 2, signal);
    std::atomic<bool> draining{false}, done{false};
    size_t fetches = 0, waits = 0;
    const auto count = [&](const Span& s) {
        fetches += s.kind == SpanKind::fetch;
        waits += s.kind == SpanKind::tracing;
    };
    recorder.span(span_at(0, 0, 1));
    std::thread consumer([&] {
        // The first drain sees one span and is held up until the producer waits (its second wake: the
        // first is the half-full request).
        recorder.drain(
            [&](const Span& s) {
                draining = true;
                while (wakes < 2) std::this_thread::yield();
                count(s);
            },
            [](const CounterSample&) {});
        signal->collected();
        // Then every later wake gets a whole collection.
        int handled = 2;
        while (!done) {
            if (wakes > handled) {
                handled = wakes;
                recorder.drain(count, [](const CounterSample&) {});
                signal->collected();
                ++collections_wanted;
            }
            std::this_thread::yield();
        }
    });
    while (!draining) std::this_thread::yield();
    for (int i = 1; i < 5; ++i) recorder.span(span_at(0, i, i + 1));  // the fifth finds the ring full
    done = true;
    consumer.join();
    recorder.drain(count, [](const CounterSample&) {});
    CHECK(recorder.dropped() == 0);
    CHECK(fetches == 5);
    CHECK(waits == 1);
    CHECK(collections_wanted >= 1);  // the wait span needed a second collection
}

TEST_CASE("Trace::dropped counts drops of recorders whose owners let go") {
    Trace trace;
    TraceStore store;
    const LaneId lane = trace.lanes().lane(LaneRole::worker, 0);
    {
        std::shared_ptr<Recorder> recorder = trace.make_recorder();
        for (size_t i = 0; i < Recorder::kDefaultSpanCapacity + 3; ++i) recorder->span(span_at(lane, 0, 1));
        CHECK(trace.dropped() == 3);
    }
    trace.collect(store);  // drains the released recorder; it still holds nothing else
    trace.collect(store);  // now it is forgotten
    CHECK(trace.dropped() == 3);
    CHECK(store.span_count() == Recorder::kDefaultSpanCapacity);
}

TEST_CASE("a lane registered while a collection drains is listed with the spans it already has") {
    Trace trace;
    TraceStore store;
    const LaneId main = trace.lanes().lane(LaneRole::main);
    auto first = trace.make_recorder();
    auto second = trace.make_recorder();  // drained after the first
    first->span(span_at(main, 5, 6));
    // Another thread's pipeline starting mid-drain: it registers a lane and records on it before the
    // collection reaches its recorder. (Here the tap, which sees the first span, plays that thread.)
    struct RegistersMidDrain : TraceTap {
        Trace& trace;
        Recorder& recorder;
        RegistersMidDrain(Trace& t, Recorder& r) : trace(t), recorder(r) {}
        void span(const Span&) override {
            if (done) return;
            done = true;
            recorder.span(span_at(trace.lanes().lane(LaneRole::kernel, 7), 10, 20));
        }
        void counter(const CounterSample&) override {}
        bool done = false;
    } tap(trace, *second);

    trace.collect(store, now_ns(), &tap);
    REQUIRE(store.span_count() == 2);
    size_t listed = 0;
    for (const LaneInfo& lane : store.lanes()) listed += store.spans(lane.id).size();
    CHECK(listed == store.span_count());
    CHECK(store.lanes().size() == 2);
}

TEST_CASE("collect moves spans into the store in per-lane start order") {
    Trace trace;
    TraceStore store;
    const LaneId worker = trace.lanes().lane(LaneRole::worker, 0);
    const LaneId main = trace.lanes().lane(LaneRole::main);
    auto first = trace.make_recorder();
    auto second = trace.make_recorder();
    first->span(span_at(worker, 10, 20));
    second->span(span_at(main, 5, 6));
    first->span(span_at(worker, 30, 40));
    second->span(span_at(worker, 25, 27));  // another thread's span lands between the first one's

    trace.collect(store);
    CHECK(store.span_count() == 4);
    CHECK(starts(store.spans(worker)) == std::vector<TimeNs>{10, 25, 30});
    CHECK(starts(store.spans(main)) == std::vector<TimeNs>{5});
    CHECK(store.lanes().size() == 2);
    CHECK(first->empty());
    CHECK(second->empty());

    trace.collect(store);  // nothing new: nothing added twice
    CHECK(store.span_count() == 4);
}

// A thread that starts while the consumer collects (a pipeline's pin thread starting as the collector
// ticks) must not have its recorder forgotten before its first span: its whole lane would be lost.
// Each thread here waits a little between making its recorder and recording, which is when a collect
// that began before the recorder existed used to drop it as "released and empty".
TEST_CASE("a recorder made during a collect keeps every span it records") {
    Trace trace;
    TraceStore store;
    const LaneId lane = trace.lanes().lane(LaneRole::pin);
    constexpr int kThreads = 400;
    std::atomic<bool> producing{true};
    std::thread producer([&] {
        for (int i = 0; i < kThreads; ++i) {
            std::shared_ptr<Recorder> recorder = trace.make_recorder();
            std::this_thread::sleep_for(std::chrono::microseconds(200));
            recorder->span(span_at(lane, i, i + 1));
        }
        producing = false;
    });
    while (producing) trace.collect(store);
    producer.join();
    trace.collect(store);
    CHECK(store.span_count() == kThreads);
    CHECK(trace.dropped() == 0);
}

TEST_CASE("a late span with an earlier start is inserted in start order") {
    TraceStore store;
    store.add(span_at(0, 10, 11));
    store.add(span_at(0, 30, 31));
    store.add(span_at(0, 20, 21));
    store.add(span_at(0, 5, 6));
    CHECK(starts(store.spans(0)) == std::vector<TimeNs>{5, 10, 20, 30});
    CHECK(store.first_time() == 5);
    CHECK(store.last_time() == 31);
}

TEST_CASE("a late counter sample is inserted in time order") {
    TraceStore store;
    store.add(CounterSample{10, 1, CounterKind::outstanding_batches});
    store.add(CounterSample{30, 3, CounterKind::outstanding_batches});
    store.add(CounterSample{20, 2, CounterKind::outstanding_batches});
    const auto& series = store.counters(CounterKind::outstanding_batches);
    REQUIRE(series.size() == 3);
    CHECK(series[1].time == 20);
    CHECK(series[1].value == 2);
    CHECK(store.counters(CounterKind::pinned_bytes).empty());
}

TEST_CASE("an empty store starts and ends at 0") {
    TraceStore store;
    CHECK(store.first_time() == 0);
    CHECK(store.last_time() == 0);
    CHECK(store.span_count() == 0);
}

TEST_CASE("past max_spans the store evicts its oldest spans") {
    TraceLimits limits;
    limits.max_spans = 100;
    TraceStore store(limits);
    for (int i = 0; i < 150; ++i) store.add(span_at(static_cast<LaneId>(i % 2), i * 10, i * 10 + 5));
    CHECK(store.span_count() <= 100);
    CHECK(store.span_count() + store.evicted_spans() == 150);
    CHECK(store.last_time() == 149 * 10 + 5);
    // What is left is the newest: exactly the spans added after the evicted ones.
    REQUIRE_FALSE(store.spans(0).empty());
    REQUIRE_FALSE(store.spans(1).empty());
    const TimeNs oldest_kept = std::min(store.spans(0).front().start, store.spans(1).front().start);
    CHECK(oldest_kept == static_cast<TimeNs>(store.evicted_spans()) * 10);
}

TEST_CASE("eviction ends even when a long span or an old counter level blocks the oldest quarter") {
    TraceLimits limits;
    limits.max_spans = 100;
    limits.max_counter_samples = 100;
    TraceStore store(limits);
    store.add(span_at(0, 0, 1'000'000));  // covers the whole trace: no quarter of time is free of it
    for (int i = 0; i < 300; ++i) store.add(span_at(0, 1000 + i * 10, 1005 + i * 10));
    CHECK(store.span_count() <= 100);

    store.add(CounterSample{0, 7, CounterKind::pinned_bytes});  // the level kept at every early cut
    for (int i = 0; i < 300; ++i)
        store.add(CounterSample{2'000'000 + i, double(i), CounterKind::pinned_bytes});
    CHECK(store.counters(CounterKind::pinned_bytes).size() <= 100);
}

TEST_CASE("evict_before keeps the counter level in force at the cut") {
    TraceStore store;
    for (int i = 0; i < 4; ++i) store.add(CounterSample{i * 10, double(i + 1), CounterKind::pinned_bytes});
    store.add(span_at(0, 0, 5));
    store.add(span_at(0, 10, 30));
    store.evict_before(25);
    const auto& series = store.counters(CounterKind::pinned_bytes);
    REQUIRE(series.size() == 2);
    CHECK(series[0].time == 20);  // the level from 20 still holds at 25
    CHECK(series[0].value == 3);
    CHECK(series[1].time == 30);
    CHECK(starts(store.spans(0)) == std::vector<TimeNs>{10});  // it ends after the cut
    CHECK(store.evicted_spans() == 1);
}

TEST_CASE("a Gauge records its level after every change") {
    Trace trace;
    TraceStore store;
    Gauge gauge(trace, CounterKind::pinned_bytes);
    gauge.add(100);
    gauge.add(50);
    gauge.add(-30);
    CHECK(gauge.value() == 120);
    trace.collect(store);
    std::vector<double> levels;
    for (const CounterSample& s : store.counters(CounterKind::pinned_bytes)) levels.push_back(s.value);
    CHECK(levels == std::vector<double>{100, 150, 120});
}

TEST_CASE("a ScopedSpan records once, when it finishes") {
    Recorder recorder;
    {
        ScopedSpan span(&recorder, 3, SpanKind::pin, 7, 1024, HostMemory::pinned);
        span.finish();
    }  // the destructor after finish() records nothing more
    std::vector<Span> spans;
    recorder.drain([&](const Span& s) { spans.push_back(s); }, [](const CounterSample&) {});
    REQUIRE(spans.size() == 1);
    CHECK(spans[0].lane == 3);
    CHECK(spans[0].kind == SpanKind::pin);
    CHECK(spans[0].batch == 7);
    CHECK(spans[0].bytes == 1024);
    CHECK(spans[0].memory == HostMemory::pinned);
    CHECK(spans[0].end >= spans[0].start);
}

TEST_CASE("LaneRegistry returns the same id for the same kind and index") {
    LaneRegistry lanes;
    const LaneId worker0 = lanes.lane(LaneRole::worker, 0);
    const LaneId worker1 = lanes.lane(LaneRole::worker, 1);
    CHECK(lanes.lane(LaneRole::worker, 0) == worker0);
    CHECK(worker1 != worker0);
    CHECK(lanes.lane(LaneRole::h2d, 0) != lanes.lane(LaneRole::kernel, 0));
    CHECK(lanes.size() == 4);
    const std::vector<LaneInfo> snapshot = lanes.snapshot();
    CHECK(snapshot[worker1].name == "worker 1");
    CHECK(snapshot[worker1].id == worker1);
    CHECK(snapshot[2].group == LaneGroup::device);
}

TEST_CASE("sort keys order the train loop before workers before the pin thread before device lanes") {
    CHECK(lane_sort_key(LaneRole::main, 0) < lane_sort_key(LaneRole::worker, 0));
    CHECK(lane_sort_key(LaneRole::worker, 0) < lane_sort_key(LaneRole::worker, 1));
    CHECK(lane_sort_key(LaneRole::worker, 63) < lane_sort_key(LaneRole::pin, 0));
    CHECK(lane_sort_key(LaneRole::pin, 0) < lane_sort_key(LaneRole::h2d, 0));
    // Per stream: H2D, kernel, D2H, then the next stream.
    CHECK(lane_sort_key(LaneRole::h2d, 0) < lane_sort_key(LaneRole::kernel, 0));
    CHECK(lane_sort_key(LaneRole::kernel, 0) < lane_sort_key(LaneRole::d2h, 0));
    CHECK(lane_sort_key(LaneRole::d2h, 0) < lane_sort_key(LaneRole::h2d, 1));
}

TEST_CASE("a window's spans are found by search: the first that reaches it to the last that starts in it") {
    // Random overlapping spans, some inserted late, against a brute-force scan of the whole lane.
    std::mt19937 random(7);
    TraceStore store;
    std::vector<Span> all;
    for (int i = 0; i < 5000; ++i) {
        const TimeNs start = i * 100 + std::uniform_int_distribution<TimeNs>(-3000, 0)(random) * (i % 7 == 0);
        const TimeNs length = i % 97 == 0 ? 40'000 : std::uniform_int_distribution<TimeNs>(1, 150)(random);
        all.push_back(span_at(0, start, start + length));
        store.add(all.back());
    }
    for (int trial = 0; trial < 300; ++trial) {
        const TimeNs a = std::uniform_int_distribution<TimeNs>(-1000, 510'000)(random);
        const Interval window{a, a + std::uniform_int_distribution<TimeNs>(0, 20'000)(random)};
        size_t expected = 0;
        for (const Span& s : all) expected += s.end >= window.start && s.start <= window.end;
        size_t found = 0;
        const std::span<const Span> touching = store.spans_touching(0, window);
        for (const Span& s : touching) found += s.end >= window.start;
        CAPTURE(window.start);
        CHECK(found == expected);
        if (!touching.empty()) {
            CHECK(touching.front().end >= window.start);  // it starts at a span that reaches the window
            CHECK(touching.back().start <= window.end);
        }
    }
    store.evict_before(250'000);  // rebuilds what the search uses
    const Interval late{400'000, 400'500};
    size_t expected = 0, found = 0;
    for (const Span& s : all) expected += s.end >= 250'000 && s.end >= late.start && s.start <= late.end;
    for (const Span& s : store.spans_touching(0, late)) found += s.end >= late.start;
    CHECK(found == expected);
}

TEST_CASE("a lane sums its spans' durations over any run of them, late spans and evictions included") {
    std::mt19937 random(11);
    LaneSpans lane;
    for (int i = 0; i < 3000; ++i) {
        const TimeNs start = i * 100 - (i % 5 == 0 ? 2500 : 0);  // every fifth span arrives late
        lane.add(span_at(0, start, start + std::uniform_int_distribution<TimeNs>(0, 90)(random)));
    }
    auto brute = [&](size_t from, size_t to) {
        TimeNs sum = 0;
        for (size_t i = from; i < to; ++i) sum += lane.all()[i].end - lane.all()[i].start;
        return sum;
    };
    auto summed = [&](size_t from, size_t to) {
        return lane.duration_before(to) - lane.duration_before(from);
    };
    for (int trial = 0; trial < 200; ++trial) {
        const size_t a = std::uniform_int_distribution<size_t>(0, lane.size())(random);
        const size_t b = std::uniform_int_distribution<size_t>(a, lane.size())(random);
        CHECK(summed(a, b) == brute(a, b));
    }
    lane.erase_ended_before(150'000);
    CHECK(summed(0, lane.size()) == brute(0, lane.size()));
    CHECK(summed(10, 700) == brute(10, 700));
}

TEST_CASE("the store knows each batch's extent and when its last kernel ended, across lanes") {
    TraceStore store;
    Span fetch = span_at(0, 100, 200, 7);
    Span kernel_a = span_at(1, 300, 400, 7), kernel_b = span_at(2, 350, 450, 7);
    kernel_a.kind = kernel_b.kind = SpanKind::kernel;
    Span d2h = span_at(3, 460, 470, 7);
    for (const Span& s : {fetch, kernel_a, d2h, kernel_b}) store.add(s);
    const std::optional<BatchExtent> extent = store.batch_extent(7);
    REQUIRE(extent);
    CHECK(extent->first_start == 100);
    CHECK(extent->last_end == 470);
    CHECK(extent->last_kernel_end == 450);
    CHECK_FALSE(store.batch_extent(6));
    CHECK_FALSE(store.batch_extent(8));
    store.add(span_at(0, 50, 60, 3));  // an older batch id arrives late
    CHECK(store.batch_extent(3)->last_end == 60);
    CHECK(store.batch_extent(7)->first_start == 100);
}

TEST_CASE("samples_in holds the level in force at the window's start - level_at reads one time") {
    TraceStore store;
    for (const CounterSample s :
         {CounterSample{0, 1}, CounterSample{10, 2}, CounterSample{20, 3}, CounterSample{30, 4}})
        store.add(s);
    const std::span<const CounterSample> seen = store.samples_in(CounterKind::outstanding_batches, {15, 20});
    REQUIRE(seen.size() == 2);
    CHECK(seen.front().time == 10);  // the level set at 10 still holds at 15
    CHECK(seen.back().time == 20);
    CHECK(store.samples_in(CounterKind::outstanding_batches, {-10, -5}).empty());
    CHECK(store.level_at(CounterKind::outstanding_batches, 25) == 3);
    CHECK(store.level_at(CounterKind::outstanding_batches, -1) == 0);
}

TEST_CASE("extract copies the spans touching a window and the levels it saw") {
    TraceStore store;
    store.add(span_at(0, 0, 50));
    store.add(span_at(0, 100, 400));
    store.add(span_at(0, 450, 460));
    store.add(span_at(1, 900, 1000));
    store.add(CounterSample{0, 5, CounterKind::pinned_bytes});
    store.add(CounterSample{700, 6, CounterKind::pinned_bytes});
    const TraceStore copy = store.extract({300, 600});
    CHECK(copy.span_count() == 2);
    CHECK(starts(copy.spans(0)) == std::vector<TimeNs>{100, 450});
    CHECK(copy.counters(CounterKind::pinned_bytes).size() == 1);
    CHECK(copy.level_at(CounterKind::pinned_bytes, 300) == 5);
}

TEST_CASE("names interned while recording reach the store with the spans that carry them") {
    Trace trace;
    TraceStore store;
    const LaneId lane = trace.lanes().lane(LaneRole::worker, 0);
    const std::shared_ptr<Recorder> recorder = trace.make_recorder();
    CHECK(trace.intern("") == kNoName);
    const uint32_t a = trace.intern("a.jpg +7");
    CHECK(trace.intern("a.jpg +7") == a);
    // The store already holds a name of its own: the trace's ids are translated, not assumed equal.
    const uint32_t other = store.intern("from elsewhere");
    Span span;
    span.lane = lane;
    span.kind = SpanKind::fetch;
    span.start = 10, span.end = 20;
    span.name = a;
    recorder->span(span);
    trace.collect(store);
    span.start = 30, span.end = 40;
    span.name = trace.intern("b.png +7");  // made after the first collection
    recorder->span(span);
    span.start = 50, span.end = 60;
    span.name = kNoName;
    recorder->span(span);
    trace.collect(store);
    const std::span<const Span> spans = store.spans(lane);
    REQUIRE(spans.size() == 3);
    CHECK(store.name(spans[0].name) == "a.jpg +7");
    CHECK(store.name(spans[1].name) == "b.png +7");
    CHECK(spans[2].name == kNoName);
    CHECK(store.name(other) == "from elsewhere");
}
