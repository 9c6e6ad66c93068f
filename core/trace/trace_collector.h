#pragma once
// The one thread that owns a TraceStore, as Tracy's worker owns its data: every `period` it drains the
// Trace's recorders, inserts what they recorded (late CUPTI spans included) and evicts what nobody
// needs. Readers never write: they take a Snapshot, a consistent view of the store that the collector
// does not change while it lives, and let go of it soon (the GUI holds one while it builds a frame).
//
// Declare the collector after the Trace it reads (a Session): it must stop before the trace goes.
#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <shared_mutex>

#include "core/trace/periodic_thread.h"
#include "core/trace/trace.h"
#include "core/trace/trace_store.h"

namespace pinscope {

struct CollectorOptions {
    TimeNs period = 20 * kNsPerMs;  // how often the recorders are drained
    TraceLimits limits;
    // Eviction walks every lane, so it waits until a requested cut frees at least this much time.
    TimeNs evict_at_least = 30 * kNsPerS;
    // Runs on the collector thread after each collection, with the store as it now is. Readers may read
    // it at the same time; the hook must not keep references past its return.
    std::function<void(const TraceStore&)> on_collected;
    // Sees every span and sample collected (trace_tap.h): a capture streamed as the run records.
    std::shared_ptr<TraceTap> tap;
};

class TraceCollector {
  public:
    // A reader's view of the store: consistent for as long as it lives (the collector waits to write).
    class Snapshot {
      public:
        const TraceStore& store() const { return *store_; }
        const TraceStore* operator->() const { return store_; }

      private:
        friend class TraceCollector;
        Snapshot(std::shared_mutex& mutex, const TraceStore& store) : lock_(mutex), store_(&store) {}
        std::shared_lock<std::shared_mutex> lock_;
        const TraceStore* store_;
    };

    explicit TraceCollector(Trace& trace, CollectorOptions options = {});
    ~TraceCollector();  // stops the thread after one last collection
    TraceCollector(const TraceCollector&) = delete;
    TraceCollector& operator=(const TraceCollector&) = delete;

    Snapshot read() const { return Snapshot(store_mutex_, store_); }
    // Collects now and returns once what was recorded before the call is in the store.
    void flush();
    // Data that ended before `time` may go: evicted at a later collection, once that frees
    // evict_at_least of history (counter levels in force at `time` stay).
    void allow_eviction_before(TimeNs time) { evictable_before_.store(time, std::memory_order_relaxed); }
    uint64_t collections() const { return collections_.load(std::memory_order_relaxed); }
    // How long after its end the latest source delivers a span, the most over the last two seconds: a
    // live view that ends this far before the newest data shows every lane as complete as it will be
    // (CUPTI delivers GPU spans in batches, a tenth of a second or more late; host threads within a
    // collection).
    TimeNs delivery_lag() const { return delivery_lag_.load(std::memory_order_relaxed); }

  private:
    void collect_once();
    void evict_if_worthwhile();
    void note_lag(TimeNs now, TimeNs lag);

    Trace& trace_;
    CollectorOptions options_;
    mutable std::shared_mutex store_mutex_;  // exclusive while the collector writes
    TraceStore store_;
    std::atomic<TimeNs> evictable_before_{0};
    std::atomic<uint64_t> collections_{0};
    std::atomic<TimeNs> delivery_lag_{0};
    std::deque<std::pair<TimeNs, TimeNs>> recent_lags_;  // (collection time, its largest lag): the last 2 s
    std::unique_ptr<PeriodicThread> thread_;             // last: it starts once everything above exists
};

}  // namespace pinscope
