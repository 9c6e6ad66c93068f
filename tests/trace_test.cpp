// The trace model: lock-free recording, collection into a sorted store, bounded memory, lanes.
#include <doctest/doctest.h>

#include <algorithm>

#include "core/trace/lanes.h"
#include "core/trace/recorder.h"
#include "core/trace/spsc_ring.h"
#include "core/trace/trace.h"
#include "core/trace/trace_store.h"

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

TEST_CASE("Trace::dropped counts drops of recorders whose owners let go") {
    Trace trace;
    TraceStore store;
    const LaneId lane = trace.lanes().lane(LaneKind::worker, 0);
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

TEST_CASE("collect moves spans into the store in per-lane start order") {
    Trace trace;
    TraceStore store;
    const LaneId worker = trace.lanes().lane(LaneKind::worker, 0);
    const LaneId main = trace.lanes().lane(LaneKind::main);
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
    const LaneId worker0 = lanes.lane(LaneKind::worker, 0);
    const LaneId worker1 = lanes.lane(LaneKind::worker, 1);
    CHECK(lanes.lane(LaneKind::worker, 0) == worker0);
    CHECK(worker1 != worker0);
    CHECK(lanes.lane(LaneKind::h2d, 0) != lanes.lane(LaneKind::kernel, 0));
    CHECK(lanes.size() == 4);
    const std::vector<LaneInfo> snapshot = lanes.snapshot();
    CHECK(snapshot[worker1].name == "worker 1");
    CHECK(snapshot[worker1].id == worker1);
    CHECK(snapshot[2].group == LaneGroup::device);
}

TEST_CASE("sort keys order the train loop before workers before the pin thread before device lanes") {
    CHECK(lane_sort_key(LaneKind::main, 0) < lane_sort_key(LaneKind::worker, 0));
    CHECK(lane_sort_key(LaneKind::worker, 0) < lane_sort_key(LaneKind::worker, 1));
    CHECK(lane_sort_key(LaneKind::worker, 63) < lane_sort_key(LaneKind::pin, 0));
    CHECK(lane_sort_key(LaneKind::pin, 0) < lane_sort_key(LaneKind::h2d, 0));
    // Per stream: H2D, kernel, D2H, then the next stream.
    CHECK(lane_sort_key(LaneKind::h2d, 0) < lane_sort_key(LaneKind::kernel, 0));
    CHECK(lane_sort_key(LaneKind::kernel, 0) < lane_sort_key(LaneKind::d2h, 0));
    CHECK(lane_sort_key(LaneKind::d2h, 0) < lane_sort_key(LaneKind::h2d, 1));
}
