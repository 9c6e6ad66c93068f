#pragma once
// The pipeline model's class (pipeline_model.h runs it), shared by the three files that define it, one
// concept each: pipeline_model.cpp (set-up and the event loop), pipeline_model_workers.cpp (the workers and
// the pin thread), pipeline_model_loop.cpp (the train loop). The host's threads, cores and memory bus:
// host_threads.h. Not for use outside core/model.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/model/host_threads.h"
#include "core/model/model_gpu.h"
#include "core/model/pipeline_model.h"
#include "core/pipeline/dataset.h"
#include "core/pipeline/worker_assignment.h"

namespace pinscope::model::internal {

// A pool of batch buffers (host_buffer_pool.h): a buffer is allocated when none is free, and a fresh
// one pays its first touch (HostRates::first_touch_gbps) on its first batch.
struct BufferPool {
    int alive = 0, allocated = 0;
    bool acquire() {  // true: a fresh buffer
        const bool fresh = alive == allocated;
        allocated += fresh ? 1 : 0;
        ++alive;
        return fresh;
    }
    void release() { --alive; }
};

struct Delivery {
    double time;
    int target;  // a worker's index, or kToPin, kToLoop
    int64_t batch;
    uint64_t sent = 0;   // the order it was sent in: deliveries due at one time arrive in that order
    bool wakes = false;  // the target was blocked waiting for it: it pays a wake-up on arrival
    // Without the tie-break the heap handed equal-time deliveries over in any order: the indices a worker
    // was sent at start-up reached its queue shuffled (batch 61 before batch 5), and in order the train
    // loop waited for batches their workers built last (8 workers, prefetch 8: one batch in 1.75 s).
    bool operator>(const Delivery& other) const {
        return time != other.time ? time > other.time : sent > other.sent;
    }
};
constexpr int kToPin = -1, kToLoop = -2;

// Part `c` of `n` of `total` bytes: equal parts, the last taking the remainder (train_loop.cpp).
inline double chunk_bytes(double total, int n, int c) {
    const double part = std::floor(total / n);
    return c == n - 1 ? total - part * (n - 1) : part;
}

// The pipeline as discrete events: the host's threads (workers, the pin thread, the train loop) and the GPU's
// streams and engines, stepped from one event to the next until the run's batches or seconds are done.
class Model {
  public:
    Model(const PipelineConfig& config, const Calibration& calibration, const HostRates& host,
          int64_t batch_limit, double seconds);
    ModelTrace run();

  private:
    // Per batch of the run.
    struct BatchState {
        bool arrived = false;       // at the train loop's queue
        bool fresh_buffer = false;  // its collate buffer is new: converting into it faults its pages in
        bool fresh_pinned = false;  // its pinned buffer (the pin copy's) is new
        int worker = 0;
        int gpu_ops_left = 0;
        int kernels_left = 0;
        double gpu_done = -1;
        double written = -1e18;  // when it reached the train loop, just written: how cold staging finds it
    };
    // A GPU op the train loop issues for its current batch.
    struct Issue {
        OpKind kind;
        int stream;
        double bytes, duration;
    };
    enum class LoopStep : uint8_t {
        get,
        retire_call,
        retire_wait,
        issue_call,
        issue_wait,
        stage,
        tail,
        record,
        drain,
        done
    };

    double next_event() const;
    void advance(double to);
    bool step_all();
    void deliver(const Delivery& delivery);
    // Hands `batch` to `target` (a worker, kToPin or kToLoop); true when that wakes it, whose CPU the
    // sender then spends.
    bool send(int target, int64_t batch);
    int thread_of(int target) const {  // its index in threads_
        return target >= 0 ? target : target == kToPin ? workers_ : workers_ + 1;
    }
    bool waiting_for_delivery(int target) const;  // asleep in pop(), and no wake-up on its way
    bool asleep_in_pop(int target) const;
    void push_delivery(Delivery delivery);
    void on_gpu_done(const GpuOp& op);
    BatchState& batch(int64_t index);

    // Workers and the pin thread.
    bool step_worker(int w);
    bool step_pin();
    double sample_cost_scale(int64_t batch) const;
    static const ByteRateCurve& convert_curve(const PipelineConfig& config, const HostRates& host);
    double convert_ns(int64_t index);
    double pin_ns(int64_t index);
    double io_ns(int64_t index) const;
    double io_cpu_ns() const;
    double io_load(double io_ns) const;
    // The threads that sleep io waits at once: the workers, or the train loop's with none.
    int io_sleepers() const { return std::max(config_.num_workers, 1); }
    void acquire_collate(int64_t index) {
        batch(index).fresh_buffer = collate_pool_.acquire();
        fresh_batches_ += batch(index).fresh_buffer ? 1 : 0;
    }
    BufferPool& pool_held_downstream() { return pin_thread_ || pin_inline_ ? pinned_pool_ : collate_pool_; }

    // The train loop.
    bool step_loop();
    bool loop_get_next();
    bool loop_retire_call(HostThread& t);
    bool loop_retire_wait(HostThread& t);
    bool loop_issue_call(HostThread& t);
    bool loop_issue_wait(HostThread& t);
    bool loop_stage(HostThread& t);
    double staging_curve_bytes(const GpuOp& op) const;
    bool loop_tail(HostThread& t);
    bool loop_record(HostThread& t);
    bool loop_drain(HostThread& t);
    bool loop_get();
    void try_dispatch();
    void plan_batch();
    bool wake_after_gpu(HostThread& t);
    bool op_call_over(HostThread& t);
    void block(HostThread& t) {
        if (t.phase != HostThread::Phase::blocked) blocked_since_ = now_;
        t.phase = HostThread::Phase::blocked;
    }
    void open_span(LoopState state);
    void close_span();

    const PipelineConfig& config_;
    const HostRates& host_;
    ModelGpu gpu_;
    const int64_t batch_limit_;
    const double end_time_;
    const bool resident_;  // data_on_gpu: nothing loaded, no H2D
    const int workers_;
    const bool pin_thread_;  // PyTorch's pin thread copies each batch
    const bool pin_inline_;  // num_workers=0 with pin_memory, pin_mode=thread: pinned in next()
    const bool result_pinned_;
    const double batch_bytes_;
    // transfer_dtype uint8: a normalize kernel before each compute kernel, timed as the calibration says
    // (Calibration::normalize_seconds; GB/s is pixels per ns).
    const bool normalize_gpu_;
    const double normalize_latency_ns_, normalize_pixels_per_ns_;
    const double call_ns_;
    const double handoff_ns_;
    const double wake_ns_, woken_ns_, wake_latency_ns_;
    const double gpu_wake_ns_;
    // Written with streaming stores (dataset.h): the pin copy and pageable staging read them from memory,
    // slower than a batch still in the cache the cores share.
    const bool batches_streamed_;
    const double pin_ns_;
    const double convert_ns_;             // a batch's convert into a buffer already paged in
    const BusUse convert_bus_, pin_bus_;  // what each takes of the memory bus
    const double first_touch_ns_;         // a fresh batch buffer's pages
    BufferPool collate_pool_, pinned_pool_;
    int fresh_batches_ = 0;  // batches that paid a fresh buffer's first touch and have not ended yet
    double now_ = 0;
    ModelTrace trace_;

    std::vector<HostThread> threads_;  // workers, then the pin thread, then the train loop
    std::vector<HostThread*> thread_ptrs_;
    std::vector<double> wake_due_;      // per thread: when a delivery that wakes it arrives (-1: none coming)
    std::vector<Delivery> deliveries_;  // a min-heap by time, then by the order sent
    uint64_t sent_ = 0;
    std::vector<BatchState> batches_;

    // Workers' index queues, and the pin thread's queue of collated batches.
    std::vector<std::vector<int64_t>> index_queues_;
    std::vector<size_t> index_heads_;
    std::vector<int64_t> pin_queue_;
    size_t pin_head_ = 0;

    // Train-loop side bookkeeping, as in DataLoader.
    int64_t send_index_ = 0, receive_index_ = 0;
    int outstanding_ = 0;
    WorkerAssignment assignment_{config_.num_workers, config_.in_order};
    std::vector<int64_t> arrival_order_;  // in_order=false: batches as they arrive
    size_t arrival_head_ = 0;

    LoopStep loop_step_ = LoopStep::get;
    int64_t current_ = -1;  // the batch being submitted
    int64_t submitted_ = 0;
    // The batches in the order the loop submitted them: by index in order, by arrival otherwise. A slot is
    // reused by submission count (train_loop.cpp), so its old batch is found here, not by index.
    std::vector<int64_t> submission_order_;
    int64_t drain_next_ = 0;
    std::vector<Issue> plan_;
    size_t plan_at_ = 0;
    OpRef pending_op_;
    double staging_started_ = 0;  // when the train loop began staging the pending pageable copy
    // When the train loop last finished staging a copy each way (H2D, D2H): how long its bounce buffer's
    // bytes have sat since a copy of this size last used them (HostRates::staging_cooled_ns). Per way, not
    // per copy: a batch's 4 KiB result staged right before the next batch's 4.8 MiB left the most of the
    // buffer as cold as the last batch left it (on this project's VM 9.5 GB/s between 1.8 ms kernels).
    // None yet: long ago.
    std::array<double, 2> last_staged_{-1e18, -1e18};
    double& last_staged(OpKind kind) { return last_staged_[kind == OpKind::d2h ? 1 : 0]; }
    int records_left_ = 0;
    bool host_step_done_ = false;  // this batch's step_host_us is spent
    double blocked_since_ = 0;
    bool span_open_ = false;
    LoopSpan span_;
};

}  // namespace pinscope::model::internal
