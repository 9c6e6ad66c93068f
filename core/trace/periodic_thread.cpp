#include "core/trace/periodic_thread.h"

namespace pinscope {

PeriodicThread::PeriodicThread(TimeNs period, std::function<void()> tick)
    : period_(period), tick_(std::move(tick)), thread_([this] { loop(); }) {}

PeriodicThread::~PeriodicThread() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
}

void PeriodicThread::run_now() {
    std::unique_lock lock(mutex_);
    const uint64_t ticket = ++requested_;
    wake_.notify_all();
    finished_.wait(lock, [&] { return answered_ >= ticket || stopping_; });
}

void PeriodicThread::request() {
    {
        std::lock_guard lock(mutex_);
        ++requested_;
    }
    wake_.notify_all();
}

void PeriodicThread::loop() {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
        wake_.wait_for(lock, std::chrono::nanoseconds(period_),
                       [&] { return stopping_ || requested_ > answered_; });
        if (stopping_) break;
        const uint64_t answering = requested_;
        lock.unlock();
        tick_();
        lock.lock();
        answered_ = answering;
        finished_.notify_all();
    }
    finished_.notify_all();  // a run_now() waiting while we stop returns too
}

}  // namespace pinscope
