#pragma once
// GPU spans from CUDA events, for when CUPTI cannot be used (or --no-cupti): a timing event is recorded
// on the stream before and after each copy and launch, and a thread turns completed pairs into spans.
// Event times are relative, so they are placed on the host's axis through an anchor: an event on an
// idle stream of our own, synchronised, whose host time is read right after. Anchors are renewed
// every few seconds because cudaEventElapsedTime returns float milliseconds, which lose microseconds
// over long runs. The memory kind is the host buffer's, not a measurement.
#include <deque>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "core/device/cuda/gpu_activity.h"
#include "core/trace/periodic_thread.h"
#include "core/trace/trace.h"

namespace pinscope::cuda {

class EventTimer final : public GpuActivity {
  public:
    // Times the work of device `ordinal`, which is current on the calling thread.
    EventTimer(Trace& trace, int ordinal, std::string why_not_cupti);
    ~EventTimer() override;

    void add_stream(cudaStream_t stream, int index) override;
    void before(const GpuOp& op, cudaStream_t stream) override;
    void after(const GpuOp& op, cudaStream_t stream) override;
    void flush() override;
    std::string describe() const override;
    ActivityStats stats() const override;

  private:
    struct Anchor {
        cudaEvent_t event = nullptr;
        TimeNs host_time = 0;
        ~Anchor();
    };
    struct Pending {
        cudaEvent_t start = nullptr, end = nullptr;
        Span span;  // lane, kind, batch, bytes, memory; times filled in when the end event completes
        std::shared_ptr<Anchor> anchor;
    };

    cudaEvent_t take_event();      // mutex_ held
    void reuse(Pending& pending);  // mutex_ held
    std::shared_ptr<Anchor> new_anchor();
    void poll();                // on the poller: spans of completed pairs, and a fresh anchor now and then
    size_t record_completed();  // returns how many spans it recorded; call with no lock held

    Trace& trace_;
    const int ordinal_;
    const std::string why_not_cupti_;
    std::shared_ptr<Recorder> recorder_;  // written only by record_completed, under poll_mutex_
    cudaStream_t anchor_stream_ = nullptr;

    mutable std::mutex mutex_;  // guards everything below
    std::unordered_map<cudaStream_t, int> index_of_;
    std::unordered_map<cudaStream_t, cudaEvent_t> open_;  // start events of ops being issued, per stream
    std::deque<Pending> pending_;
    std::vector<cudaEvent_t> free_events_;
    std::shared_ptr<Anchor> anchor_;
    ActivityStats stats_;

    std::mutex poll_mutex_;                   // one record_completed at a time
    TimeNs anchor_renewed_ = 0;               // on the poller only
    std::unique_ptr<PeriodicThread> poller_;  // last: started once everything above exists
};

}  // namespace pinscope::cuda
