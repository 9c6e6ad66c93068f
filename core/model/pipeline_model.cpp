#include "core/model/pipeline_model.h"

#include "core/model/pipeline_model_internal.h"

// The model's set-up and its event loop; the workers and the pin thread are in pipeline_model_workers.cpp,
// the train loop in pipeline_model_loop.cpp (the class: pipeline_model_internal.h).

namespace pinscope::model {
namespace internal {

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
      convert_ns_(host.per_sample_ns * config.batch_size +
                  convert_curve(config, host).ns_for(static_cast<double>(config.batch_bytes()))),
      convert_bus_(converting(host, static_cast<double>(config.batch_bytes()))),
      pin_bus_(copying(host, static_cast<double>(config.batch_bytes()))),
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
        gpu_.update_rates(now_);
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
        batch(d.batch).written = now_;
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

}  // namespace internal

ModelTrace run_model(const PipelineConfig& config, const Calibration& calibration, const HostRates& host,
                     int64_t batch_limit, double seconds) {
    return internal::Model(config, calibration, host, batch_limit, seconds).run();
}

}  // namespace pinscope::model
