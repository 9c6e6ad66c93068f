#include "core/trace/trace_collector.h"

namespace pinscope {

TraceCollector::TraceCollector(Trace& trace, CollectorOptions options)
    : trace_(trace),
      options_(std::move(options)),
      store_(options_.limits),
      thread_(std::make_unique<PeriodicThread>(options_.period, [this] { collect_once(); })) {
    // A ring that fills asks for a collection now rather than at the next tick, or waits for one.
    trace_.collection_signal().attach([this] { thread_->request(); });
}

TraceCollector::~TraceCollector() {
    trace_.collection_signal().detach();  // producers still recording stop waiting for us
    thread_.reset();
    collect_once();  // what was recorded since the last tick
}

void TraceCollector::flush() {
    thread_->run_now();
}

void TraceCollector::collect_once() {
    const TimeNs now = now_ns();
    Trace::Collected collected;
    {
        std::unique_lock write(store_mutex_);  // a copy out of the rings: a fraction of a millisecond
        collected = trace_.collect(store_, now, options_.tap.get());
        evict_if_worthwhile();
    }
    trace_.collection_signal().collected();  // producers waiting for room may go on
    note_lag(now, std::max(collected.lag[0], collected.lag[1]));
    collections_.fetch_add(1, std::memory_order_relaxed);
    if (options_.on_collected) options_.on_collected(store_);  // reading: readers may share the store
}

void TraceCollector::note_lag(TimeNs now, TimeNs lag) {
    constexpr TimeNs kRemembered = 2 * kNsPerS;
    recent_lags_.emplace_back(now, lag);
    while (recent_lags_.front().first < now - kRemembered) recent_lags_.pop_front();
    TimeNs most = 0;
    for (const auto& [when, l] : recent_lags_) most = std::max(most, l);
    delivery_lag_.store(most, std::memory_order_relaxed);
}

void TraceCollector::evict_if_worthwhile() {
    const TimeNs cut = evictable_before_.load(std::memory_order_relaxed);
    const TimeNs first = store_.first_time();
    if (cut > first && cut - first >= options_.evict_at_least) store_.evict_before(cut);
}

}  // namespace pinscope
