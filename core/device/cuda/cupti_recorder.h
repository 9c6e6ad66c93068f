#pragma once
// GPU spans of one device from CUPTI activity records: MEMCPY (with the host memory kind CUPTI saw),
// CONCURRENT_KERNEL (plain KERNEL would serialise kernels), RUNTIME and EXTERNAL_CORRELATION. Our batch
// id is pushed as external correlation id CUSTOM0 around each copy and launch; CUPTI ties it to the API
// call's correlation id, which the GPU record carries too, so every GPU span gets its batch.
//
// Rules of use:
// - One recorder per device; the recorders of several devices share the process's one CUPTI
//   subscription (cupti_subscription.h), which routes each record to its device's recorder. start()
//   says why when it cannot start, and the device then times its work with CUDA events.
// - CUPTI stamps records with now_ns() (a timestamp callback, registered once per process before any
//   kind is enabled), so GPU spans share the host spans' axis.
// - The subscription's thread flushes completed records every 100 ms, so a live view follows the run.
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "core/device/cuda/cupti_library.h"
#include "core/device/cuda/gpu_activity.h"
#include "core/trace/trace.h"

namespace pinscope::cuda {

class CuptiRecorder final : public GpuActivity {
  public:
    // A running recorder of device `ordinal` (current on the calling thread), or nullptr with `why`
    // set (one line) when CUPTI cannot be used.
    static std::unique_ptr<CuptiRecorder> start(Trace& trace, int ordinal, std::string* why);
    ~CuptiRecorder() override;  // the device has synchronised: its last records are delivered

    void add_stream(cudaStream_t stream, int index) override;
    void before(const GpuOp& op, cudaStream_t stream) override;
    void after(const GpuOp& op, cudaStream_t stream) override;
    void flush() override;
    std::string describe() const override;
    ActivityStats stats() const override;

    // From the subscription, one call at a time: a span of this device's work on CUPTI stream
    // `stream_id`, with its batch, or without one when it never came (`uncorrelated`).
    void deliver(Span span, uint32_t stream_id, bool uncorrelated);
    void count_untimed();
    void count_dropped(size_t records);

  private:
    struct Lanes {
        LaneId h2d = kNoLane, kernel = kNoLane, d2h = kNoLane;
    };

    CuptiRecorder(Trace& trace, const CuptiLibrary& cupti, int ordinal);
    Lanes lanes_of_index(int index) const;
    Lanes lanes_of(uint32_t stream_id);

    Trace& trace_;
    const CuptiLibrary& cupti_;
    const int ordinal_;
    std::shared_ptr<Recorder> recorder_;  // fed only by deliver(): single producer
    bool joined_ = false;

    mutable std::mutex streams_mutex_;
    std::unordered_map<uint32_t, Lanes> lanes_;  // CUPTI stream id -> the lanes of our stream index
    Lanes default_lanes_;

    mutable std::mutex stats_mutex_;
    ActivityStats stats_;
};

}  // namespace pinscope::cuda
