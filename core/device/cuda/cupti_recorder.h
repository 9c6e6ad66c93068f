#pragma once
// GPU spans from CUPTI activity records: MEMCPY (with the host memory kind CUPTI saw), CONCURRENT_KERNEL
// (plain KERNEL would serialise kernels), RUNTIME and EXTERNAL_CORRELATION. Our batch id is pushed as
// external correlation id CUSTOM0 around each copy and launch; CUPTI ties it to the API call's
// correlation id, which the GPU record carries too, so every GPU span gets its batch.
//
// Rules of use:
// - One recorder at a time per process (CUPTI's activity state is process-wide); start() says why
//   when it cannot start, and the device then times its work with CUDA events.
// - CUPTI stamps records with now_ns() (a timestamp callback, registered once per process before any
//   kind is enabled), so GPU spans share the host spans' axis.
// - A thread flushes completed records every kFlushInterval, so a live view follows the run.
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "core/device/cuda/cupti_library.h"
#include "core/device/cuda/gpu_activity.h"
#include "core/trace/periodic_thread.h"
#include "core/trace/trace.h"

namespace pinscope::cuda {

class CuptiRecorder final : public GpuActivity {
  public:
    static constexpr TimeNs kFlushInterval = 100 * kNsPerMs;

    // A running recorder, or nullptr with `why` set (one line) when CUPTI cannot be used.
    static std::unique_ptr<CuptiRecorder> start(Trace& trace, std::string* why);
    ~CuptiRecorder() override;

    void add_stream(cudaStream_t stream, int index) override;
    void before(const GpuOp& op, cudaStream_t stream) override;
    void after(const GpuOp& op, cudaStream_t stream) override;
    void flush() override;
    std::string describe() const override;
    ActivityStats stats() const override;

    // Called from CUPTI's buffer-completed callback with the route lock held.
    void consume(uint8_t* buffer, size_t valid_bytes, size_t dropped);

  private:
    struct Lanes {
        LaneId h2d = kNoLane, kernel = kNoLane, d2h = kNoLane;
    };
    struct Waiting {
        Span span;
        uint64_t generation = 0;  // flush cycle it arrived in, to give up on it eventually
    };
    struct Known {
        int64_t batch = kNoBatch;
        uint64_t generation = 0;
    };

    CuptiRecorder(Trace& trace, const CuptiLibrary& cupti);
    void on_gpu_record(uint32_t correlation, Span span, uint32_t stream_id);
    void on_external(uint32_t correlation, uint64_t external_id);
    void expire_old();  // route lock held
    Lanes lanes_of(uint32_t stream_id);

    Trace& trace_;
    const CuptiLibrary& cupti_;
    std::shared_ptr<Recorder> recorder_;  // written only under the route lock: single producer
    TimeNs clock_offset_ = 0;             // added to CUPTI times when the timestamp callback is missing
    CUpti_SubscriberHandle subscriber_ = nullptr;

    mutable std::mutex streams_mutex_;
    std::unordered_map<uint32_t, Lanes> lanes_;  // CUPTI stream id -> the lanes of our stream index
    Lanes default_lanes_;

    // Guarded by the route lock (cupti_recorder.cpp), like every consume().
    std::unordered_map<uint32_t, Known> batch_of_;   // correlation id -> our batch
    std::unordered_map<uint32_t, Waiting> waiting_;  // GPU spans whose batch has not arrived yet
    uint64_t generation_ = 0;
    ActivityStats stats_;

    std::atomic<bool> finishing_{false};       // set once the flusher is gone: nothing more will come
    std::unique_ptr<PeriodicThread> flusher_;  // last: started once the recorder is set up
};

}  // namespace pinscope::cuda
