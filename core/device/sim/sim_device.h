#pragma once
// A modelled GPU that runs in real time, by the engine rules of core/device/engine_rules.h (which the
// predictor's model follows too): `copy_engines` copy engines and one compute engine; copies move at the
// calibrated bandwidth for their size, direction and host memory kind; copies of one direction run one at a
// time, in issue order, and an H2D and a D2H at once share `bidir_total_gbps` (less what the host's writes
// take: engine_rules::bidir_bytes_per_ns). Kernels occupy the compute
// engine for their duration, one at a time.
//
// How a run ends: cut_work() ends every op where it stands (recorded as cut) and every wait with it, so
// a run stops on time whatever its kernels and copies would still take.
//
// How time advances: the model is a fluid simulation with a cursor. Any call first advances the model
// to now_ns() (completing what has finished, starting what has become ready), so a caller never waits
// for another thread to notice the time. The device's own thread advances it at the next completion
// time, so GPU spans appear on time in a live view even when no host thread calls in.
#include <atomic>
#include <condition_variable>
#include <deque>
#include <limits>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "core/device/calibration.h"
#include "core/device/device.h"
#include "core/device/engine_rules.h"
#include "core/device/sim/pageable_staging.h"
#include "core/device/startup_spans.h"
#include "core/trace/trace.h"

namespace pinscope {

class SimDevice final : public Device {
  public:
    // `time_scale` > 1 is slow motion: copies, kernels, calls and staging take that many times longer.
    // `ordinal` numbers the simulated GPU as CUDA would a real one: its lanes are that device's.
    // `cold_start`: the device starts as in a fresh process. Its first CUDA call, on whichever thread,
    // creates the context (others wait for it), and each pinned or device allocation costs what a fresh
    // cudaHostAlloc or cudaMalloc does; each is a `startup` span on the calling thread's lane, from the
    // calibration's start-up figures. Without it the device starts warm, as a run measured from its
    // first batch assumes.
    SimDevice(Trace& trace, Calibration calibration = builtin_calibration(), double time_scale = 1,
              int ordinal = 0, bool cold_start = false);
    ~SimDevice() override;

    const DeviceInfo& info() const override { return info_; }
    const Calibration& calibration() const { return calibration_; }
    // What each call spins for: the calibration's host_call_us less the model's own cost per call.
    double call_charge_us() const { return call_charge_us_; }

    void copy_to_device(const DeviceBuffer& dst, size_t dst_offset, const HostBuffer& src, size_t src_offset,
                        size_t bytes, Stream& stream, bool non_blocking, int64_t batch) override;
    void copy_to_host(HostBuffer& dst, size_t dst_offset, const DeviceBuffer& src, size_t src_offset,
                      size_t bytes, Stream& stream, bool non_blocking, int64_t batch) override;
    void launch_kernel(const KernelWork& work, Stream& stream) override;

    void record(Event& event, Stream& stream) override;
    void wait(Stream& stream, const Event& event) override;
    bool ready(const Event& event) override;
    void synchronize(const Event& event) override;
    void synchronize(Stream& stream) override;
    void synchronize() override;
    void cut_work() override;

  protected:
    std::byte* raw_allocate_host(size_t bytes, HostMemory memory) override;
    void raw_free_host(std::byte* data, size_t bytes, HostMemory memory) override;
    void* raw_allocate_device(size_t bytes) override;
    void raw_free_device(void* data, size_t bytes) override;
    uintptr_t raw_create_stream(int index) override;
    void raw_destroy_stream(uintptr_t handle) override;
    uintptr_t raw_create_event() override;
    void raw_destroy_event(uintptr_t handle) override;

  private:
    enum class OpKind { h2d, d2h, kernel, record, wait };

    // A point in a stream's order: done when the stream has completed op `seq`.
    struct Marker {
        uintptr_t stream = 0;  // 0: never recorded, which counts as done (as in CUDA)
        uint64_t seq = 0;
    };

    struct Op {
        uint64_t seq = 0;
        uint64_t ticket = 0;  // global issue order: engines are granted first come, first served
        OpKind kind = OpKind::kernel;
        HostMemory memory = HostMemory::none;
        double bytes = 0;
        TimeNs duration = 0;  // kernels
        int64_t batch = kNoBatch;
        Marker awaited;  // waits
        bool running = false;
        TimeNs start = 0;
        double remaining = 0;  // bytes left to move (copies)
        double solo_rate = 0;  // bytes/ns this copy would get alone
        double rate = 0;       // bytes/ns it gets now
        // Pageable copies: the calling thread stages the bytes for real (PageableStaging); the copy
        // cannot complete before that.
        bool staging = false;
        TimeNs moved = 0;  // when the last byte moved (copies); 0 while bytes are left
    };

    struct SimStream {
        int index = 0;
        LaneId lanes[3] = {kNoLane, kNoLane, kNoLane};  // h2d, kernel, d2h
        uint64_t next_seq = 1;
        uint64_t done_seq = 0;
        std::deque<Op> queue;  // front is the oldest not yet completed
    };

    using Lock = std::unique_lock<std::mutex>;

    uint64_t enqueue(Lock& lock, Stream& stream, Op op);  // returns the op's seq
    static Op copy_op(OpKind kind, const HostBuffer& host, size_t bytes, int64_t batch);
    void advance_to(TimeNs now);
    void move_copies_to(TimeNs until);
    void start_ready_ops();
    uint64_t oldest_waiting_copy() const;  // the lowest ticket of a copy not yet started
    static engine_rules::Work work_of(OpKind kind);
    void update_rates();
    TimeNs next_completion() const;  // earliest end among running ops; INT64_MAX if none
    void complete(SimStream& stream);
    void record_span(const SimStream& stream, const Op& op, TimeNs end, bool cut);
    void cut_everything(TimeNs at);  // cut_work() under the lock
    bool done(const Marker& marker) const;
    bool started(const Marker& marker) const;
    void sleep_until_model(Lock& lock, TimeNs wake);
    void wait_until_done(Lock& lock, const Marker& marker);
    void wait_until_started(Lock& lock, const Marker& marker);
    void wait_until_moved(Lock& lock, const Marker& marker);  // every byte of a copy moved (or done)
    Op* running_op(const Marker& marker);
    void stage_pageable(Lock& lock, const Marker& marker, std::byte* host, size_t bytes,
                        StagingDirection direction);
    void run_device_thread();
    SimStream& stream_of(const Stream& stream);
    // Cold start: the context, made by the first call that needs one, and a fresh allocation's cost.
    void ensure_context();
    void spend_startup(std::string_view what, double seconds);

    Calibration calibration_;
    double time_scale_ = 1;      // slow motion: every modelled duration this many times longer
    int ordinal_ = 0;            // the GPU number its lanes carry
    double call_charge_us_ = 0;  // spent per call: host_call_us less the model's own cost per call
    DeviceInfo info_;
    Trace& trace_;
    const bool cold_start_ = false;
    std::mutex context_mutex_;               // held while the context is made: every other first call waits
    std::atomic<bool> context_ready_{true};  // false until a cold device's first call has made it
    StartupSpans startup_spans_;

    mutable std::mutex mutex_;
    std::condition_variable cut_made_;    // long waits sleep on it, so that cut_work() ends them at once
    bool cut_ = false;                    // cut_work() was called: nothing runs any more
    std::atomic<bool> cutting_{false};    // the same, for stretched host work outside the lock
    std::shared_ptr<Recorder> recorder_;  // single producer: only used under mutex_
    TimeNs clock_ = 0;                    // the model's time cursor
    uint64_t next_ticket_ = 1;
    uintptr_t next_handle_ = 1;
    std::unordered_map<uintptr_t, SimStream> streams_;
    std::unordered_map<uintptr_t, Marker> events_;
    engine_rules::Engines engines_;
    engine_rules::HostWriteLoad host_writes_;  // what slows H2D copies (engine_rules.h)
    // The device thread (run_device_thread) sleeps on its own mutex, never the model's, and reads when the
    // model's next completion is due from next_due_, which advance_to() publishes.
    std::atomic<TimeNs> next_due_{std::numeric_limits<TimeNs>::max()};  // none running
    std::mutex device_thread_mutex_;
    std::condition_variable device_thread_wake_;  // only the destructor wakes it early
    std::atomic<bool> stopping_{false};
    std::thread device_thread_;
};

}  // namespace pinscope
