#pragma once
// A Recorder belongs to one producing thread (or to one object whose calls are serialised by its own
// mutex, like the simulated GPU). Recording is a store into a ring: no allocation, no shared lock.
// The consumer (Trace::collect) drains every recorder into a TraceStore.
#include <atomic>
#include <cstdint>

#include "core/trace/span.h"
#include "core/trace/spsc_ring.h"

namespace pinscope {

class Recorder {
  public:
    static constexpr size_t kDefaultSpanCapacity = 1 << 15;
    static constexpr size_t kDefaultCounterCapacity = 1 << 14;

    Recorder(size_t span_capacity = kDefaultSpanCapacity, size_t counter_capacity = kDefaultCounterCapacity)
        : spans_(span_capacity), counters_(counter_capacity) {}

    void span(const Span& span) {
        if (!spans_.push(span)) dropped_.fetch_add(1, std::memory_order_relaxed);
    }

    void counter(CounterKind kind, double value, TimeNs time = now_ns()) {
        if (!counters_.push(CounterSample{time, value, kind}))
            dropped_.fetch_add(1, std::memory_order_relaxed);
    }

    uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }

    template <class SpanSink, class CounterSink>
    void drain(SpanSink&& on_span, CounterSink&& on_counter) {
        spans_.drain(on_span);
        counters_.drain(on_counter);
    }

    bool empty() const { return spans_.empty() && counters_.empty(); }

  private:
    SpscRing<Span> spans_;
    SpscRing<CounterSample> counters_;
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
