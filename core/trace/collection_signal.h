#pragma once
// How a producer gets room in its recorder without losing a span: a ring that is half full asks the
// consumer to collect now (request(), which never blocks), and a ring that is full waits for a collection
// to finish (wait_for_collection()), the wait recorded as a `tracing` span so the cost of observing shows.
// Only while a consumer is attached (a TraceCollector): a trace nobody collects cannot make room, and its
// recorders count what they drop instead of waiting for ever.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>

namespace pinscope {

class CollectionSignal {
  public:
    // The consumer: `wake` asks it to collect as soon as it can, and must not block.
    void attach(std::function<void()> wake) {
        std::lock_guard lock(mutex_);
        wake_ = std::move(wake);
    }
    // The consumer is going: waiting producers stop waiting (and drop what they hold).
    void detach() {
        {
            std::lock_guard lock(mutex_);
            wake_ = nullptr;
        }
        collected_.notify_all();
    }
    // The consumer, after each collection.
    void collected() {
        {
            std::lock_guard lock(mutex_);
            ++collections_;
        }
        collected_.notify_all();
    }

    // A producer's ring is filling: collect soon.
    void request() {
        std::lock_guard lock(mutex_);
        if (wake_) wake_();
    }
    // A producer's ring is full: asks for a collection and waits until one has finished. False when no
    // consumer is attached (then nothing will make room).
    bool wait_for_collection() {
        std::unique_lock lock(mutex_);
        if (!wake_) return false;
        wake_();
        const uint64_t target = collections_ + 1;
        // Bounded, so that a consumer that detaches between our check and its notify cannot strand us.
        collected_.wait_for(lock, std::chrono::milliseconds(100),
                            [&] { return collections_ >= target || !wake_; });
        return static_cast<bool>(wake_);
    }

  private:
    std::mutex mutex_;
    std::condition_variable collected_;
    std::function<void()> wake_;
    uint64_t collections_ = 0;
};

}  // namespace pinscope
