#pragma once
// A bounded single-producer single-consumer ring. The producer never blocks and never takes a lock:
// when the consumer falls behind, push() fails and the caller decides (Recorder waits for the consumer,
// or counts a drop when there is none).
#include <atomic>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace pinscope {

template <class T>
class SpscRing {
  public:
    explicit SpscRing(size_t capacity) {
        size_t rounded = 1;
        while (rounded < capacity) rounded <<= 1;
        slots_ = std::make_unique<T[]>(rounded);
        mask_ = rounded - 1;
    }

    size_t capacity() const { return mask_ + 1; }

    bool push(const T& value) { return push_counted(value) != 0; }

    // push() that says how full the ring is with `value` in it: 0 when it was full and took nothing.
    size_t push_counted(const T& value) {
        const uint64_t head = head_.load(std::memory_order_relaxed);
        const uint64_t used = head - tail_.load(std::memory_order_acquire);
        if (used > mask_) return 0;
        slots_[head & mask_] = value;
        head_.store(head + 1, std::memory_order_release);
        return static_cast<size_t>(used + 1);
    }

    // Consumer side: hands every queued value to `sink` in order and returns how many there were.
    template <class Sink>
    size_t drain(Sink&& sink) {
        const uint64_t tail = tail_.load(std::memory_order_relaxed);
        const uint64_t head = head_.load(std::memory_order_acquire);
        for (uint64_t i = tail; i != head; ++i) sink(slots_[i & mask_]);
        tail_.store(head, std::memory_order_release);
        return static_cast<size_t>(head - tail);
    }

    bool empty() const {
        return head_.load(std::memory_order_acquire) == tail_.load(std::memory_order_acquire);
    }

  private:
    std::unique_ptr<T[]> slots_;
    size_t mask_ = 0;
    alignas(64) std::atomic<uint64_t> head_{0};  // next slot the producer writes
    alignas(64) std::atomic<uint64_t> tail_{0};  // next slot the consumer reads
};

}  // namespace pinscope
