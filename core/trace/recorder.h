#pragma once
// A Recorder belongs to one producing thread (or to one object whose calls are serialised by its own
// mutex, like the simulated GPU). Recording is a store into a ring: no allocation, no shared lock.
// The consumer (Trace::collect) drains every recorder into a TraceStore.
//
// Nothing is dropped while a consumer is attached (collection_signal.h): a ring half full asks it to
// collect at once, and a full ring makes the producer wait for a collection, the wait recorded as a
// `tracing` span on the waiting thread's lane. Only a recorder nobody collects drops, and counts it.
#include <atomic>
#include <cstdint>
#include <memory>

#include "core/trace/collection_signal.h"
#include "core/trace/span.h"
#include "core/trace/spsc_ring.h"
#include "core/trace/thread_lane.h"

namespace pinscope {

class Recorder {
  public:
    static constexpr size_t kDefaultSpanCapacity = 1 << 15;
    static constexpr size_t kDefaultCounterCapacity = 1 << 14;

    Recorder(size_t span_capacity = kDefaultSpanCapacity, size_t counter_capacity = kDefaultCounterCapacity,
             std::shared_ptr<CollectionSignal> signal = nullptr)
        : spans_(span_capacity),
          counters_(counter_capacity),
          span_half_(spans_.capacity() / 2),
          counter_half_(counters_.capacity() / 2),
          signal_(std::move(signal)) {}

    void span(const Span& span) {
        const size_t used = spans_.push_counted(span);
        if (used == span_half_ && signal_) signal_->request();
        if (used == 0) wait_to_record(span);
    }

    void counter(CounterKind kind, double value, TimeNs time = now_ns()) {
        const CounterSample sample{time, value, kind};
        const size_t used = counters_.push_counted(sample);
        if (used == counter_half_ && signal_) signal_->request();
        if (used == 0) wait_to_record(sample);
    }

    // Spans and samples lost because the ring was full and no consumer was attached to make room.
    uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }

    template <class SpanSink, class CounterSink>
    void drain(SpanSink&& on_span, CounterSink&& on_counter) {
        spans_.drain(on_span);
        counters_.drain(on_counter);
    }

    bool empty() const { return spans_.empty() && counters_.empty(); }

  private:
    // The slow path of a full ring: wait for collections until there is room, then record the wait.
    template <class Value>
    void wait_to_record(const Value& value) {
        const TimeNs from = now_ns();
        if (!push_waiting(value)) return;
        Span waited;
        waited.start = from;
        waited.end = now_ns();
        waited.kind = SpanKind::tracing;
        waited.lane = this_thread_lane() != kNoLane ? this_thread_lane() : last_lane(value);
        if (waited.lane == kNoLane) {
            dropped_.fetch_add(1, std::memory_order_relaxed);
            return;
        }
        // The wait span may have to wait too: a collection that read the ring's head while it held
        // one span frees only that slot, and `value` took it.
        push_waiting(waited);
    }
    // Pushes `value`, waiting for collections while the ring is full. False, and counted as dropped,
    // when no consumer is attached to make room.
    template <class Value>
    bool push_waiting(const Value& value) {
        while (!push(value)) {
            if (!signal_ || !signal_->wait_for_collection()) {
                dropped_.fetch_add(1, std::memory_order_relaxed);
                return false;
            }
        }
        return true;
    }
    bool push(const Span& span) { return spans_.push(span); }
    bool push(const CounterSample& sample) { return counters_.push(sample); }
    LaneId last_lane(const Span& span) const { return span.lane; }
    LaneId last_lane(const CounterSample&) const { return kNoLane; }

    SpscRing<Span> spans_;
    SpscRing<CounterSample> counters_;
    const size_t span_half_, counter_half_;
    std::shared_ptr<CollectionSignal> signal_;
    std::atomic<uint64_t> dropped_{0};
};

// Records one span from construction to destruction (or to finish()).
class ScopedSpan {
  public:
    ScopedSpan(Recorder* recorder, LaneId lane, SpanKind kind, int64_t batch = kNoBatch, uint64_t bytes = 0,
               HostMemory memory = HostMemory::none)
        : recorder_(recorder) {
        span_.start = now_ns();
        span_.lane = lane;
        span_.kind = kind;
        span_.batch = batch;
        span_.bytes = bytes;
        span_.memory = memory;
    }
    ScopedSpan(const ScopedSpan&) = delete;
    ScopedSpan& operator=(const ScopedSpan&) = delete;
    ~ScopedSpan() { finish(); }

    void set_batch(int64_t batch) { span_.batch = batch; }
    void set_bytes(uint64_t bytes) { span_.bytes = bytes; }
    void set_memory(HostMemory memory) { span_.memory = memory; }
    void set_name(uint32_t name) { span_.name = name & kMaxNameId; }  // an id from Trace::intern
    // The run ended before the work did (Span::cut).
    void mark_cut() { span_.cut = 1; }

    // Nothing happened after all (e.g. shutdown before the work began): record no span.
    void cancel() { recorder_ = nullptr; }

    void finish() {
        if (!recorder_) return;
        span_.end = now_ns();
        recorder_->span(span_);
        recorder_ = nullptr;
    }

  private:
    Recorder* recorder_;
    Span span_;
};

}  // namespace pinscope
