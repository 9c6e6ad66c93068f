#include "core/model/pipeline_model.h"

#include <algorithm>
#include <cmath>

#include "core/model/host_threads.h"
#include "core/model/model_gpu.h"
#include "core/pipeline/dataset.h"
#include "core/pipeline/worker_assignment.h"

// Index of this file (the host's threads, cores and memory bus: host_threads.h):
// [SECTION] The model: set-up and the event loop
// [SECTION] Workers and the pin thread
// [SECTION] The train loop

namespace pinscope::model {
namespace {

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
double chunk_bytes(double total, int n, int c) {
    const double part = std::floor(total / n);
    return c == n - 1 ? total - part * (n - 1) : part;
}

//------------------------------------------------------------------------------------------------------------
// [SECTION] The model: set-up and the event loop
//------------------------------------------------------------------------------------------------------------

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
    double convert_ns(int64_t index);
    double pin_ns(int64_t index);
    double io_ns(int64_t index) const;
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
    const double convert_bus_, pin_bus_;  // the part of the memory bus each uses alone
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
    int records_left_ = 0;
    bool host_step_done_ = false;  // this batch's step_host_us is spent
    double blocked_since_ = 0;
    bool span_open_ = false;
    LoopSpan span_;
};

Model::Model(const PipelineConfig& config, const Calibration& calibration, const HostRates& host,
             int64_t batch_limit, double seconds)
    : config_(config),
      host_(host),
      gpu_(calibration, config.streams),
      batch_limit_(batch_limit),
      end_time_(seconds > 0 ? seconds * 1e9 : kNever),
      // data_on_gpu (predict() hands it over with no workers and no pin copy): the train loop's inline
      // path with every host cost zero stands in for a loader that does nothing.
      resident_(config.data_on_gpu),
      workers_(config.num_workers),
      pin_thread_(config.pin_memory && config.pin_mode == PinMode::thread && config.num_workers > 0),
      pin_inline_(config.pin_memory && config.pin_mode == PinMode::thread && config.num_workers == 0),
      result_pinned_(config.pin_memory),
      batch_bytes_(static_cast<double>(config.batch_bytes())),
      normalize_gpu_(config.normalizes_on_gpu()),
      normalize_latency_ns_(calibration.normalize_latency_us * 1e3),
      normalize_pixels_per_ns_(calibration.normalize_u8_gbps),
      call_ns_(std::max(host.device_call_us, calibration.host_call_us) * 1e3),
      handoff_ns_(host.handoff_us * 1e3),
      wake_ns_(host.wake_us * 1e3),
      woken_ns_(host.woken_us * 1e3),
      wake_latency_ns_(host.wake_latency_us * 1e3),
      gpu_wake_ns_(host.gpu_wake_us * 1e3),
      batches_streamed_(writes_around_the_cache(config)),
      pin_ns_((batches_streamed_ ? host.memcpy_from_streamed : host.memcpy_rate)
                  .ns_for(static_cast<double>(config.batch_bytes()))),
      convert_bus_(bus_use(host.convert_bus_threads, static_cast<double>(config.batch_bytes()))),
      pin_bus_(bus_use(host.memcpy_bus_threads, static_cast<double>(config.batch_bytes()))),
      first_touch_ns_(host.first_touch_ns(static_cast<double>(config.batch_bytes()))) {
    threads_.resize(static_cast<size_t>(workers_) + 2);
    for (HostThread& t : threads_) thread_ptrs_.push_back(&t);
    wake_due_.assign(threads_.size(), -1);
    index_queues_.resize(static_cast<size_t>(workers_));
    index_heads_.assign(static_cast<size_t>(workers_), 0);
    batches_.reserve(static_cast<size_t>(batch_limit) + 64);
}

ModelTrace Model::run() {
    for (int i = 0; i < config_.max_outstanding() && workers_ > 0; ++i) try_dispatch();
    for (;;) {
        while (step_all()) {
        }
        if (loop_step_ == LoopStep::done) break;
        share_host(thread_ptrs_, host_);
        gpu_.update_rates();
        const double next = next_event();
        if (next >= kNever) break;  // nothing can happen any more
        advance(next);
    }
    trace_.end = now_;
    // A batch that paid a first touch and never reached the GPU: the run ended before its steady state.
    if (fresh_batches_ > 0) trace_.warm_from = trace_.end;
    trace_.batches = submitted_;
    return std::move(trace_);
}

double Model::next_event() const {
    double next = gpu_.next_completion(now_);
    for (const HostThread& t : threads_) {
        if (t.phase == HostThread::Phase::sleeping) next = std::min(next, t.wake);
        if (t.phase == HostThread::Phase::working && t.rate > 0)
            next = std::min(next, now_ + t.left / t.rate);
    }
    if (!deliveries_.empty()) next = std::min(next, deliveries_.front().time);
    if (end_time_ > now_) next = std::min(next, end_time_);  // a loop waiting for the loader stops then
    return std::max(next, now_);
}

void Model::advance(double to) {
    for (HostThread& t : threads_)
        if (t.phase == HostThread::Phase::working) t.left -= t.rate * (to - now_);
    gpu_.advance(now_, to);
    now_ = to;
    while (!deliveries_.empty() && deliveries_.front().time <= now_) {
        std::pop_heap(deliveries_.begin(), deliveries_.end(), std::greater<>{});
        const Delivery delivery = deliveries_.back();
        deliveries_.pop_back();
        deliver(delivery);
    }
}

bool Model::step_all() {
    bool changed = gpu_.start_ready(now_);
    changed |= gpu_.complete_finished(now_, [this](const GpuOp& op) { on_gpu_done(op); });
    for (int w = 0; w < workers_; ++w) changed |= step_worker(w);
    if (pin_thread_) changed |= step_pin();
    changed |= step_loop();
    return changed;
}

void Model::push_delivery(Delivery delivery) {
    deliveries_.push_back(delivery);
    std::push_heap(deliveries_.begin(), deliveries_.end(), std::greater<>{});
}

// A hand-off to a thread asleep in its queue's pop() wakes it on another core (the scheduler puts a woken
// thread where a core is idle, or back where it slept): the sender spends the wake-up's system call and
// interrupt, the woken thread its own share once it runs, and the batch is there a wake-up later
// (HostRates::wake_us and its neighbours). On this project's 2-core VM a wake-up took 22 to 38 us and
// 14 to 24 of the two threads' CPU, where two threads on one core hand over in 1: with 1 us hand-offs the
// model had small fast batches GPU-bound that ran a third slower (one worker, batches of 8 small images,
// 27 us kernels: 296,000 samples/s predicted, 219,000 to 224,000 measured; now 208,000). A thread that is
// busy, or already being woken, finds what comes in its queue when it next looks: no wake-up for that.
bool Model::waiting_for_delivery(int target) const {
    const int i = thread_of(target);
    if (wake_due_[static_cast<size_t>(i)] >= 0) return false;
    return asleep_in_pop(target);
}

bool Model::asleep_in_pop(int target) const {
    const HostThread& t = threads_[static_cast<size_t>(thread_of(target))];
    if (target >= 0)
        return t.phase == HostThread::Phase::idle && t.step == 0 &&
               index_heads_[static_cast<size_t>(target)] >= index_queues_[static_cast<size_t>(target)].size();
    if (target == kToPin)
        return t.phase == HostThread::Phase::idle && t.step == 0 && pin_head_ >= pin_queue_.size();
    return loop_step_ == LoopStep::get && t.phase == HostThread::Phase::blocked;
}

bool Model::send(int target, int64_t batch) {
    double& wake_due = wake_due_[static_cast<size_t>(thread_of(target))];
    const bool wakes = (wake_ns_ > 0 || woken_ns_ > 0) && waiting_for_delivery(target);
    double at = now_ + handoff_ns_;
    if (wakes)
        at = wake_due = now_ + std::max(handoff_ns_, wake_latency_ns_ - woken_ns_);
    else if (wake_due >= 0)  // the thread is being woken: what comes meanwhile waits in its queue
        at = std::max(at, wake_due);
    push_delivery(Delivery{at, target, batch, sent_++, wakes});
    return wakes;
}

void Model::deliver(const Delivery& d) {
    if (d.wakes) {
        const int i = thread_of(d.target);
        wake_due_[static_cast<size_t>(i)] = -1;
        // Still asleep (the run's end may have taken the train loop elsewhere): it spends the wake-up.
        if (asleep_in_pop(d.target)) threads_[static_cast<size_t>(i)].work(woken_ns_);
    }
    if (d.target >= 0) {
        index_queues_[d.target].push_back(d.batch);
    } else if (d.target == kToPin) {
        pin_queue_.push_back(d.batch);
    } else {
        batch(d.batch).arrived = true;
        arrival_order_.push_back(d.batch);
    }
}

Model::BatchState& Model::batch(int64_t index) {
    if (index >= static_cast<int64_t>(batches_.size())) batches_.resize(static_cast<size_t>(index) + 1);
    return batches_[static_cast<size_t>(index)];
}

void Model::on_gpu_done(const GpuOp& op) {
    const Interval span{op.start, op.end};
    switch (op.kind) {
        case OpKind::kernel:
            trace_.kernels.push_back(span);
            // With the data on the GPU there is no copy: the first kernel starts the GPU's work.
            if (resident_ && (trace_.first_h2d < 0 || op.start < trace_.first_h2d))
                trace_.first_h2d = op.start;
            if (--batch(op.batch).kernels_left == 0) {
                trace_.batch_ends.push_back(now_);
                if (batch(op.batch).fresh_buffer || batch(op.batch).fresh_pinned) {
                    trace_.warm_from = now_;
                    --fresh_batches_;
                }
            }
            break;
        case OpKind::h2d:
            trace_.h2d.push_back(span);
            trace_.h2d_bytes.push_back(op.bytes);
            if (trace_.first_h2d < 0 || op.start < trace_.first_h2d) trace_.first_h2d = op.start;
            break;
        case OpKind::d2h:
            trace_.d2h.push_back(span);
            trace_.d2h_bytes.push_back(op.bytes);
            break;
    }
    BatchState& b = batch(op.batch);
    if (--b.gpu_ops_left == 0) b.gpu_done = now_;
}

//------------------------------------------------------------------------------------------------------------
// [SECTION] Workers and the pin thread
//------------------------------------------------------------------------------------------------------------

// What a batch's samples cost together, in multiples of one sample's decode_us and io_us: each sample's
// jitter averages out over a batch, a straggler batch costs straggler_factor times more (dataset.cpp).
double Model::sample_cost_scale(int64_t index) const {
    const int64_t every = config_.straggler_every;
    const bool straggler = every > 0 && index % every == every - 1;
    return config_.batch_size * (straggler ? config_.straggler_factor : 1.0);
}

// A batch's io: each sample sleeps its io_us, and each sleep ends a little late: the later, the longer
// it is and the more workers sleep at once (the train loop's thread when there are none).
double Model::io_ns(int64_t index) const {
    if (config_.io_us <= 0) return 0;
    const double overshoot_us = host_.sleep_overshoot.at(std::max(config_.num_workers, 1), config_.io_us);
    return (config_.io_us * sample_cost_scale(index) + overshoot_us * config_.batch_size) * 1e3;
}

double Model::convert_ns(int64_t index) {
    const ByteRateCurve& curve = config_.transfer_dtype == TransferDtype::uint8     ? host_.convert_uint8
                                 : config_.transfer_dtype != TransferDtype::float32 ? host_.convert_half
                                 : batches_streamed_                                ? host_.convert_streaming
                                 : workers_ == 0 ? host_.convert_plain_reused
                                                 : host_.convert_plain;
    const double first_touch = batch(index).fresh_buffer ? first_touch_ns_ : 0;
    return host_.per_sample_ns * config_.batch_size + curve.ns_for(batch_bytes_) + first_touch;
}

// Batch `index`'s pin copy, into a pinned buffer that may be new. The collate buffer it copies from is
// free after.
double Model::pin_ns(int64_t index) {
    batch(index).fresh_pinned = pinned_pool_.acquire();
    fresh_batches_ += batch(index).fresh_pinned && !batch(index).fresh_buffer ? 1 : 0;
    return pin_ns_ + (batch(index).fresh_pinned ? first_touch_ns_ : 0);
}

// A worker's program: take an index, wait out the batch's io, decode it, convert it, hand it on.
bool Model::step_worker(int w) {
    HostThread& t = threads_[static_cast<size_t>(w)];
    if (t.busy(now_)) return false;
    switch (t.step) {
        case 0: {
            std::vector<int64_t>& queue = index_queues_[static_cast<size_t>(w)];
            size_t& head = index_heads_[static_cast<size_t>(w)];
            if (head >= queue.size()) return false;
            t.batch = queue[head++];
            acquire_collate(t.batch);  // fill() takes its buffer before the io
            t.sleep(now_, io_ns(t.batch));
            t.step = 1;
            return true;
        }
        case 1:
            t.work(config_.decode_us * 1e3 * sample_cost_scale(t.batch));
            t.step = 2;
            return true;
        case 2:
            t.work(convert_ns(t.batch), convert_bus_);
            t.step = 3;
            return true;
        case 3:
            if (send(pin_thread_ ? kToPin : kToLoop, t.batch) && wake_ns_ > 0) {
                t.work(wake_ns_);
                t.step = 4;
                return true;
            }
            [[fallthrough]];
        default:
            t.phase = HostThread::Phase::idle;
            t.step = 0;
            return true;
    }
}

// The pin thread: copies each collated batch into pinned memory, in arrival order.
bool Model::step_pin() {
    HostThread& t = threads_[static_cast<size_t>(workers_)];
    if (t.busy(now_)) return false;
    if (t.step == 1) {
        collate_pool_.release();
        if (send(kToLoop, t.batch) && wake_ns_ > 0) {
            t.work(wake_ns_);
            t.step = 2;
            return true;
        }
    }
    if (t.step >= 1) {
        t.phase = HostThread::Phase::idle;
        t.step = 0;
        return true;
    }
    if (pin_head_ >= pin_queue_.size()) return false;
    t.batch = pin_queue_[pin_head_++];
    t.work(pin_ns(t.batch), pin_bus_);
    t.step = 1;
    return true;
}

//------------------------------------------------------------------------------------------------------------
// [SECTION] The train loop
//------------------------------------------------------------------------------------------------------------

void Model::try_dispatch() {
    if (outstanding_ >= config_.max_outstanding()) return;
    const int worker = assignment_.assign();
    const int64_t index = send_index_++;
    batch(index).worker = worker;
    ++outstanding_;
    if (send(worker, index)) threads_.back().debt += wake_ns_;  // paid with the train loop's next work
}

void Model::open_span(LoopState state) {
    if (span_open_) return;
    span_open_ = true;
    span_ = LoopSpan{{now_, now_}, state};
}

void Model::close_span() {
    if (!span_open_) return;
    span_open_ = false;
    span_.time.end = now_;
    if (span_.time.end > span_.time.start) trace_.loop.push_back(span_);
}

// The ops of the current batch, in the order train_loop.cpp issues them.
void Model::plan_batch() {
    plan_.clear();
    plan_at_ = 0;
    const int n = config_.chunks;
    auto stream_of = [&](int c) { return static_cast<int>((submitted_ * n + c) % config_.streams); };
    const double d2h_total = static_cast<double>(config_.d2h_bytes);
    auto h2d = [&](int c) {
        plan_.push_back({OpKind::h2d, stream_of(c), chunk_bytes(batch_bytes_, n, c), 0});
    };
    auto kernel = [&](int c) {
        if (normalize_gpu_)  // transfer_dtype uint8: the chunk's pixels become float32 first
            plan_.push_back(
                {OpKind::kernel, stream_of(c), 0,
                 normalize_latency_ns_ + chunk_bytes(batch_bytes_, n, c) / normalize_pixels_per_ns_});
        plan_.push_back({OpKind::kernel, stream_of(c), 0, config_.batch_kernel_us() * 1e3 / n});
    };
    auto d2h = [&](int c) {
        const double bytes = d2h_total > 0 ? chunk_bytes(d2h_total, n, c) : 0;
        if (bytes > 0) plan_.push_back({OpKind::d2h, stream_of(c), bytes, 0});
    };
    if (config_.issue_order == IssueOrder::per_chunk) {
        for (int c = 0; c < n; ++c) {
            if (!resident_) h2d(c);
            kernel(c), d2h(c);
        }
    } else {
        for (int c = 0; c < n; ++c)
            if (!resident_) h2d(c);
        for (int c = 0; c < n; ++c) kernel(c);
        for (int c = 0; c < n; ++c) d2h(c);
    }
    batch(current_).gpu_ops_left = static_cast<int>(plan_.size());
    batch(current_).kernels_left = normalize_gpu_ ? 2 * n : n;
    records_left_ = std::min(n, config_.streams);
}

// The next batch: from the workers (waiting while it is not there), or built inline with no workers.
bool Model::loop_get() {
    HostThread& t = threads_.back();
    if (workers_ == 0) {
        // Inline: io, decode, convert and (pin_mode=thread) the pin copy, all on this thread.
        if (t.busy(now_)) return false;
        if (t.step == 0) {
            current_ = send_index_++;
            open_span(LoopState::loader);
            acquire_collate(current_);
            t.sleep(now_, resident_ ? 0 : io_ns(current_));
            t.step = 1;
        } else if (t.step == 1) {
            t.work(resident_ ? 0 : config_.decode_us * 1e3 * sample_cost_scale(current_));
            t.step = 2;
        } else if (t.step == 2) {
            t.work(resident_ ? 0 : convert_ns(current_), convert_bus_);
            t.step = 3;
        } else if (t.step == 3 && pin_inline_) {
            t.work(pin_ns(current_), pin_bus_);
            t.step = 4;
        } else {
            if (pin_inline_) collate_pool_.release();
            close_span();
            t.phase = HostThread::Phase::idle;
            t.step = 0;
            loop_step_ = LoopStep::retire_call;
        }
        return true;
    }
    if (t.busy(now_)) return false;  // waking up for a batch that just came
    int64_t next = -1;
    if (config_.in_order) {
        if (receive_index_ < static_cast<int64_t>(batches_.size()) && batches_[receive_index_].arrived)
            next = receive_index_;
    } else if (arrival_head_ < arrival_order_.size()) {
        next = arrival_order_[arrival_head_];
    }
    if (next < 0) {
        open_span(LoopState::loader);
        t.phase = HostThread::Phase::blocked;
        return false;
    }
    close_span();
    if (config_.in_order)
        ++receive_index_;
    else
        ++arrival_head_;
    current_ = next;
    assignment_.delivered(batch(next).worker);
    --outstanding_;
    try_dispatch();
    t.phase = HostThread::Phase::idle;
    loop_step_ = LoopStep::retire_call;
    return true;
}

// The train loop was blocked on the GPU and what it waited for has happened: it comes back a wake-up
// later (true: it sleeps now, and its program looks again when it wakes).
bool Model::wake_after_gpu(HostThread& t) {
    if (t.phase != HostThread::Phase::blocked) return false;
    if (now_ <= blocked_since_) {  // it never had to wait
        t.phase = HostThread::Phase::idle;
        return false;
    }
    t.sleep(now_, gpu_wake_ns_);
    return t.phase == HostThread::Phase::sleeping;
}

// The copy or kernel call the train loop made is over (after its wake-up, if it was blocked): on to the
// batch's next op.
bool Model::op_call_over(HostThread& t) {
    if (wake_after_gpu(t)) return true;
    close_span();
    t.phase = HostThread::Phase::idle;
    ++plan_at_;
    loop_step_ = LoopStep::issue_call;
    return true;
}

// One step of the train loop's state machine: each state is a function below. Returns whether anything
// changed (the event loop steps every thread again until nothing does).
bool Model::step_loop() {
    HostThread& t = threads_.back();
    switch (loop_step_) {
        case LoopStep::get:
            return loop_get_next();
        case LoopStep::retire_call:
            return loop_retire_call(t);
        case LoopStep::retire_wait:
            return loop_retire_wait(t);
        case LoopStep::issue_call:
            return loop_issue_call(t);
        case LoopStep::issue_wait:
            return loop_issue_wait(t);
        case LoopStep::stage:
            return loop_stage(t);
        case LoopStep::tail:
            return loop_tail(t);
        case LoopStep::record:
            return loop_record(t);
        case LoopStep::drain:
            return loop_drain(t);
        case LoopStep::done:
            return false;
    }
    return false;
}

// The run's bounds reached: drain the GPU; otherwise take the next batch from the loader. A wait for the
// loader that the run's end cuts short counts to the end, as the run records it: dropped, the GPU's idle
// time after it went to "other" (3 workers decoding 2,600 us a sample, 2 s: stall 0.11 predicted, 1.00
// measured), and the model ran on to the next batch, past the run's end.
bool Model::loop_get_next() {
    if (submitted_ >= batch_limit_ || now_ >= end_time_) {
        close_span();
        loop_step_ = LoopStep::drain;
        trace_.stopped = now_;
        return true;
    }
    return loop_get();
}

// cudaEventQuery on the slot's last batch, once every slot has been used.
bool Model::loop_retire_call(HostThread& t) {
    if (submitted_ >= config_.streams + 1) {
        t.work(call_ns_);
        loop_step_ = LoopStep::retire_wait;
        return true;
    }
    plan_batch();
    loop_step_ = LoopStep::issue_call;
    return true;
}

// Waits (a `sync` span) for the slot's old batch to be done on the GPU, then lets go of its buffer.
bool Model::loop_retire_wait(HostThread& t) {
    if (t.busy(now_)) return false;
    const BatchState& old = batch(submission_order_[static_cast<size_t>(submitted_ - (config_.streams + 1))]);
    if (old.gpu_done < 0) {
        open_span(LoopState::sync);
        block(t);
        return false;
    }
    if (wake_after_gpu(t)) return true;
    close_span();
    t.phase = HostThread::Phase::idle;
    pool_held_downstream().release();
    plan_batch();
    loop_step_ = LoopStep::issue_call;
    return true;
}

// The call that issues the batch's next op (a blocking or pageable copy opens a span for its wait).
bool Model::loop_issue_call(HostThread& t) {
    if (t.busy(now_)) return false;
    if (plan_at_ >= plan_.size()) {
        loop_step_ = LoopStep::record;
        return true;
    }
    const Issue& issue = plan_[plan_at_];
    const bool host_pinned = issue.kind == OpKind::h2d ? config_.pin_memory : result_pinned_;
    const bool copy = issue.kind != OpKind::kernel;
    if (copy && (!config_.non_blocking || !host_pinned))
        open_span(host_pinned ? LoopState::sync : LoopState::staging);
    t.work(call_ns_);
    loop_step_ = LoopStep::issue_wait;
    return true;
}

// The call is over: the op goes to its stream. A kernel or a non-blocking pinned copy lets the thread go
// at once; a pageable copy is staged by this thread once it starts; a blocking copy waits to be done.
bool Model::loop_issue_wait(HostThread& t) {
    if (t.busy(now_)) return false;
    if (t.phase == HostThread::Phase::working) {
        const Issue& issue = plan_[plan_at_];
        GpuOp op;
        op.kind = issue.kind;
        op.bytes = issue.bytes;
        op.duration = issue.duration;
        op.batch = current_;
        op.pinned = issue.kind == OpKind::h2d ? config_.pin_memory : result_pinned_;
        op.staging = issue.kind != OpKind::kernel && !op.pinned;
        pending_op_ = gpu_.enqueue(issue.stream, op);
        if (op.kind == OpKind::kernel || (op.pinned && config_.non_blocking)) {
            t.phase = HostThread::Phase::idle;
            ++plan_at_;
            loop_step_ = LoopStep::issue_call;
        } else {
            block(t);
        }
        return true;
    }
    const GpuOp& op = gpu_.op(pending_op_);
    if (op.kind != OpKind::kernel && !op.pinned) {
        // As sim_device.cpp stages: to the device once the stream reaches the copy, to the host once the
        // engine has filled the bounce buffers.
        if (!gpu_.started(pending_op_)) return false;
        if (op.kind == OpKind::d2h && op.remaining > 0) return false;
        if (wake_after_gpu(t)) return true;
        const ByteRateCurve& rate = op.kind == OpKind::d2h ? host_.staging_from_device_rate
                                    : batches_streamed_    ? host_.staging_from_streamed
                                                           : host_.staging_rate;
        t.work(op.bytes / rate.at(op.bytes) + engine_rules::pageable_extra_us(gpu_.calibration()) * 1e3,
               bus_use(host_.memcpy_bus_threads, op.bytes));
        staging_started_ = now_;
        loop_step_ = LoopStep::stage;
        return true;
    }
    if (op.kind != OpKind::kernel && !config_.non_blocking && !gpu_.done(pending_op_)) return false;
    return op_call_over(t);
}

// The pageable copy's staging is done on the host; the thread waits for the copy's tail.
bool Model::loop_stage(HostThread& t) {
    if (t.busy(now_)) return false;
    GpuOp& op = gpu_.op(pending_op_);
    const auto work = op.kind == OpKind::h2d ? engine_rules::Work::h2d : engine_rules::Work::d2h;
    const double floor_ns = engine_rules::pageable_floor_seconds(gpu_.calibration(), work, op.bytes) * 1e9;
    const double held_until = staging_started_ + floor_ns;
    if (now_ < held_until - kDone) {
        t.sleep(now_, held_until - now_);
        return true;
    }
    if (!gpu_.done(pending_op_)) {
        op.staging = false;
        if (op.kind == OpKind::h2d) gpu_.staged_to_device(pending_op_, staging_started_, now_);
    }
    block(t);
    loop_step_ = LoopStep::tail;
    return true;
}

// A staged copy lets its caller go when it is done, or (non_blocking H2D) when only its tail still moves.
bool Model::loop_tail(HostThread& t) {
    const GpuOp& op = gpu_.op(pending_op_);
    const bool let_go = gpu_.done(pending_op_) || (config_.non_blocking && op.kind == OpKind::h2d);
    if (!let_go) return false;
    return op_call_over(t);
}

// An event recorded per stream the batch used; then the batch counts as submitted.
bool Model::loop_record(HostThread& t) {
    if (t.busy(now_)) return false;
    if (records_left_-- > 0) {
        t.work(call_ns_);
        return true;
    }
    // The rest of the step on the host (step_host_us: a replayed trace's Python), as session.cpp spends it
    // after submitting the batch.
    if (config_.step_host_us > 0 && !host_step_done_) {
        host_step_done_ = true;
        t.work(config_.step_host_us * 1e3);
        return true;
    }
    host_step_done_ = false;
    t.phase = HostThread::Phase::idle;
    submission_order_.push_back(current_);
    ++submitted_;
    loop_step_ = LoopStep::get;
    return true;
}

// At the end: waits for every submitted batch to be done on the GPU.
bool Model::loop_drain(HostThread& t) {
    if (t.busy(now_)) return false;
    while (drain_next_ < submitted_ &&
           batch(submission_order_[static_cast<size_t>(drain_next_)]).gpu_done >= 0)
        ++drain_next_;
    if (drain_next_ < submitted_) {
        block(t);
        return false;
    }
    if (wake_after_gpu(t)) return true;
    loop_step_ = LoopStep::done;
    return true;
}

}  // namespace

ModelTrace run_model(const PipelineConfig& config, const Calibration& calibration, const HostRates& host,
                     int64_t batch_limit, double seconds) {
    return Model(config, calibration, host, batch_limit, seconds).run();
}

}  // namespace pinscope::model
