#include "core/trace/trace.h"

#include <algorithm>
#include <atomic>

namespace pinscope {

std::shared_ptr<Recorder> Trace::make_recorder() {
    auto recorder = std::make_shared<Recorder>(Recorder::kDefaultSpanCapacity,
                                               Recorder::kDefaultCounterCapacity, signal_);
    std::lock_guard lock(mutex_);
    recorders_.push_back(recorder);
    return recorder;
}

uint32_t Trace::intern(std::string_view name) {
    if (name.empty()) return kNoName;
    std::lock_guard lock(names_mutex_);
    return names_.intern(name);
}

Trace::Collected Trace::collect(TraceStore& store, TimeNs now, TraceTap* tap) {
    std::vector<std::shared_ptr<Recorder>> recorders;
    {
        std::lock_guard lock(mutex_);
        recorders = recorders_;
    }
    // Lanes are registered rarely (when a pipeline is built): hand them over only when there are new ones.
    // Again after draining: a lane registered while the rings drain may already have spans in them, and a
    // store whose lanes() left it out held spans no lane listed until the next collection (a reader then
    // counted fewer spans over the lanes than span_count(); once in a while in collector_test under ASan).
    const auto hand_over_lanes = [&] {
        if (lanes_.size() == lanes_handed_over_) return;
        std::vector<LaneInfo> lanes = lanes_.snapshot();
        lanes_handed_over_ = lanes.size();
        store.set_lanes(std::move(lanes));
    };
    hand_over_lanes();
    // Names made since the last collection go to the store before the spans that carry them (a name is
    // interned before its span is recorded, so a span's name is always in names_ by the time it is drained).
    const auto hand_over_names = [&] {
        std::lock_guard lock(names_mutex_);
        for (size_t i = store_name_ids_.size(); i < names_.size(); ++i)
            store_name_ids_.push_back(store.intern(names_.name(static_cast<uint32_t>(i))));
    };
    hand_over_names();
    Collected collected;
    for (const auto& recorder : recorders)
        recorder->drain(
            [&](Span span) {
                if (span.name != kNoName) {
                    if (span.name >= store_name_ids_.size()) hand_over_names();
                    span.name = span.name < store_name_ids_.size() ? store_name_ids_[span.name] : kNoName;
                }
                store.add(span);
                if (tap) tap->span(span);
                ++collected.spans;
                const LaneInfo* lane = store.lane_info(span.lane);
                TimeNs& lag = collected.lag[lane && lane->group == LaneGroup::device ? 1 : 0];
                lag = std::max(lag, now - span.end);
            },
            [&](const CounterSample& sample) {
                store.add(sample);
                if (tap) tap->counter(sample);
            });

    hand_over_lanes();

    // Forget recorders whose owners are gone and that hold nothing more. Only those drained above: a
    // recorder made since has use_count 2 too (its owner's and recorders_'), and is empty until its owner
    // records, so judged by the same rule it would be forgotten with its owner alive and every span it
    // ever records lost. recorders_ only grows between collections, so the drained ones are its prefix.
    std::lock_guard lock(mutex_);
    const auto drained_end = recorders_.begin() + static_cast<std::ptrdiff_t>(recorders.size());
    const auto kept_end =
        std::remove_if(recorders_.begin(), drained_end, [this](const std::shared_ptr<Recorder>& r) {
            // use_count 2: ours in recorders_ and the copy in `recorders` above, which is still alive.
            if (r.use_count() > 2) return false;
            // The owner's last span was written before it let go; this fence pairs with that release so
            // empty() below sees the span (use_count reads the count relaxed).
            std::atomic_thread_fence(std::memory_order_acquire);
            if (!r->empty()) return false;
            dropped_by_retired_ += r->dropped();
            return true;
        });
    recorders_.erase(kept_end, drained_end);
    return collected;
}

uint64_t Trace::dropped() const {
    std::lock_guard lock(mutex_);
    uint64_t total = dropped_by_retired_.load();
    for (const auto& r : recorders_) total += r->dropped();
    return total;
}

void Gauge::add(double delta) {
    std::lock_guard lock(mutex_);
    value_ += delta;
    recorder_->counter(kind_, value_);
}

double Gauge::value() const {
    std::lock_guard lock(mutex_);
    return value_;
}

}  // namespace pinscope
