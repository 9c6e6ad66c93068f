#pragma once
// A bounded single-producer single-consumer ring. The producer never blocks and never takes a lock:
// when the consumer falls behind, push() fails and the caller counts a drop.
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

    bool push(const T& value) {
        const uint64_t head = head_.load(std::memory_order_relaxed);
        if (head - tail_.load(std::memory_order_acquire) > mask_) return false;
        slots_[head & mask_] = value;
        head_.store(head + 1, std::memory_order_release);
        return true;
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
