#pragma once
// A multi-producer multi-consumer FIFO that can be closed: pop() then returns nullopt once empty,
// so a thread blocked in it wakes on shutdown instead of hanging. This is the role multiprocessing
// queues play in PyTorch's DataLoader (index queues, the worker result queue, the data queue).
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>

namespace pinscope {

template <class T>
class BlockingQueue {
  public:
    // Returns false (and drops the value) when the queue is closed.
    bool push(T value) {
        {
            std::lock_guard lock(mutex_);
            if (closed_) return false;
            items_.push_back(std::move(value));
        }
        ready_.notify_one();
        return true;
    }

    std::optional<T> pop() {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [&] { return !items_.empty() || closed_; });
        return take(lock);
    }

    std::optional<T> try_pop() {
        std::unique_lock lock(mutex_);
        return take(lock);
    }

    // Wakes every waiter; values still queued can be popped until the queue is empty.
    void close() {
        {
            std::lock_guard lock(mutex_);
            closed_ = true;
        }
        ready_.notify_all();
    }

    // Destroys every queued value now (their destructors return buffers to pools).
    void clear() {
        std::deque<T> dropped;
        {
            std::lock_guard lock(mutex_);
            dropped.swap(items_);
        }
    }

    size_t size() const {
        std::lock_guard lock(mutex_);
        return items_.size();
    }

  private:
    std::optional<T> take(std::unique_lock<std::mutex>&) {
        if (items_.empty()) return std::nullopt;
        T value = std::move(items_.front());
        items_.pop_front();
        return value;
    }

    mutable std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<T> items_;
    bool closed_ = false;
};

}  // namespace pinscope
