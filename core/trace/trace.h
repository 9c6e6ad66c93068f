#pragma once
// The hub that producers and the consumer share: the lane registry and the list of recorders.
// Producers get a Recorder each (make_recorder, once per thread, under a lock); after that they record
// without locks. One consumer calls collect() to move everything recorded into its TraceStore.
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/trace/lanes.h"
#include "core/trace/name_table.h"
#include "core/trace/recorder.h"
#include "core/trace/trace_store.h"
#include "core/trace/trace_tap.h"

namespace pinscope {

class Trace {
  public:
    LaneRegistry& lanes() { return lanes_; }

    // The caller holds the recorder for as long as it records; once it lets go and the recorder is
    // drained, collect() forgets it.
    std::shared_ptr<Recorder> make_recorder();

    // What one collection moved: how many spans, and how late the latest-delivered of them arrived after it
    // ended, per lane group (host threads record a span as it ends; CUPTI hands GPU records over in batches).
    struct Collected {
        size_t spans = 0;
        TimeNs lag[2] = {0, 0};  // by LaneGroup: host, device
    };
    // Moves every span and counter sample recorded since into `store`, and the lanes registered since
    // the last call. One consumer, one store: a TraceCollector's, or a test's.
    // A tap, when given, sees each of them too.
    Collected collect(TraceStore& store, TimeNs now = now_ns(), TraceTap* tap = nullptr);

    // A span name's id for Span::name (kNoName for ""): thread-safe, for names made while recording (an
    // image folder's file names), so call it per batch, not per sample. collect() hands new names to the
    // store, whose ids for them the spans carry from then on.
    uint32_t intern(std::string_view name);

    // Spans and samples lost because a recorder's ring was full and no consumer was attached.
    uint64_t dropped() const;

    // What the consumer attaches to, so that a full ring waits for it rather than drop (recorder.h).
    CollectionSignal& collection_signal() { return *signal_; }

  private:
    LaneRegistry lanes_;
    std::shared_ptr<CollectionSignal> signal_ = std::make_shared<CollectionSignal>();
    mutable std::mutex mutex_;  // guards recorders_, never taken on the recording path
    std::vector<std::shared_ptr<Recorder>> recorders_;
    std::atomic<uint64_t> dropped_by_retired_{0};
    size_t lanes_handed_over_ = 0;  // by the consumer's collect(), on the consumer's thread
    std::mutex names_mutex_;        // guards names_
    NameTable names_;
    std::vector<uint32_t> store_name_ids_{kNoName};  // names_[i]'s id in the store; the consumer's
};

// A level shared by several threads (pinned bytes in use): updates are serialised by a mutex, which
// also makes its recorder single-producer. Used where updates are rare (per buffer, not per sample).
class Gauge {
  public:
    Gauge(Trace& trace, CounterKind kind) : recorder_(trace.make_recorder()), kind_(kind) {}
    void add(double delta);
    double value() const;

  private:
    mutable std::mutex mutex_;
    std::shared_ptr<Recorder> recorder_;
    CounterKind kind_;
    double value_ = 0;
};

}  // namespace pinscope
