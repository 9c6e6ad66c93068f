#include "core/trace/trace_collector.h"

namespace pinscope {

TraceCollector::TraceCollector(Trace& trace, CollectorOptions options)
    : trace_(trace), options_(std::move(options)), store_(options_.limits), thread_([this] { run(); }) {}

TraceCollector::~TraceCollector() {
    {
        std::lock_guard lock(control_mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
}

void TraceCollector::flush() {
    std::unique_lock lock(control_mutex_);
    const uint64_t ticket = ++flush_requests_;
    wake_.notify_all();
    flushed_.wait(lock, [&] { return flushes_done_ >= ticket || stopping_; });
}

void TraceCollector::run() {
    std::unique_lock lock(control_mutex_);
    for (;;) {
        wake_.wait_for(lock, std::chrono::nanoseconds(options_.period),
                       [&] { return stopping_ || flush_requests_ > flushes_done_; });
        const uint64_t answering = flush_requests_;
        const bool last = stopping_;
        lock.unlock();
        collect_once();
        lock.lock();
        flushes_done_ = answering;
        flushed_.notify_all();
        if (last) return;
    }
}

void TraceCollector::collect_once() {
    staged_.spans.clear();
    staged_.counters.clear();
    trace_.collect(staged_);  // copies out of the rings without holding the store
    {
        std::unique_lock write(store_mutex_);
        store_.add(staged_);
        evict_if_worthwhile();
    }
    collections_.fetch_add(1, std::memory_order_relaxed);
    if (options_.on_collected) options_.on_collected(store_);  // reading: readers may share the store
}

void TraceCollector::evict_if_worthwhile() {
    const TimeNs cut = evictable_before_.load(std::memory_order_relaxed);
    const TimeNs first = store_.first_time();
    if (cut > first && cut - first >= options_.evict_at_least) store_.evict_before(cut);
}

}  // namespace pinscope
