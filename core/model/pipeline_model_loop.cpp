// The pipeline model's train loop (the class: pipeline_model_internal.h).
#include "core/model/pipeline_model_internal.h"

#include "core/trace/precise_sleep.h"

namespace pinscope::model::internal {

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
            const double io = resident_ ? 0 : io_ns(current_);
            t.sleep(now_, io, io_load(io));
            t.step = 1;
        } else if (t.step == 1) {
            t.work(resident_ ? 0 : config_.decode_us * 1e3 * sample_cost_scale(current_) + io_cpu_ns());
            t.step = 2;
        } else if (t.step == 2) {
            t.work(resident_ ? 0 : convert_ns(current_), convert_bus_);
            t.step = 3;
        } else if (t.step == 3 && pin_inline_) {
            t.work(pin_ns(current_), pin_bus_);
            t.step = 4;
        } else {
            if (pin_inline_) collate_pool_.release();
            batch(current_).written = now_;
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
// later (true: it sleeps now, and its program looks again when it wakes). A wait within the spin window
// never slept (precise_sleep.h): it ends on time. Charged a wake-up each, a loop blocking on 8 chunks of
// 96 KiB a batch was predicted at 29,600 to 30,100 samples/s where the simulated GPU ran 70,900 to 71,400
// (seed 3737's #109; 73,700 predicted now).
bool Model::wake_after_gpu(HostThread& t) {
    if (t.phase != HostThread::Phase::blocked) return false;
    if (now_ - blocked_since_ <= static_cast<double>(kSpinWindowNs)) {  // it spun, or never had to wait
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
        const auto work = op.kind == OpKind::d2h ? engine_rules::Work::d2h : engine_rules::Work::h2d;
        const double warm_ns = op.bytes / rate.at(staging_curve_bytes(op));
        // An H2D copy reads the batch (as old as its arrival); either way the bounce buffer is as old as
        // this way's last staging. A D2H copy reads what the engine just wrote to the bounce buffer.
        const double bounce_idle = now_ - last_staged(op.kind);
        const double source_idle = op.kind == OpKind::h2d ? now_ - batch(current_).written : bounce_idle;
        t.work(warm_ns + host_.staging_cooled_ns(op.bytes, warm_ns, source_idle, bounce_idle) +
                   engine_rules::pageable_extra_us(gpu_.calibration(), work, op.bytes) * 1e3,
               copying(host_, op.bytes));
        staging_started_ = now_;
        loop_step_ = LoopStep::stage;
        return true;
    }
    if (op.kind != OpKind::kernel && !config_.non_blocking && !gpu_.done(pending_op_)) return false;
    return op_call_over(t);
}

// Where on its curve a pageable copy's staging is read. The curves time two buffers taken in turn, so each
// point is also a working set of twice its size; a D2H copy writes the slot's result buffer, and the slots
// (one per batch in flight, streams + 1) take turns, so its staging is read where two buffers make the
// results' working set. On this project's VM 16 MiB results went 14.4 GB/s into two or three buffers in
// turn and 9.6 into five: the cache held the one and not the other. (Chunked results are parts of those
// buffers, and the working set counts whole ones.)
double Model::staging_curve_bytes(const GpuOp& op) const {
    if (op.kind != OpKind::d2h) return op.bytes;
    const double results_in_turn =
        static_cast<double>(config_.streams + 1) * static_cast<double>(config_.d2h_bytes);
    return std::max(op.bytes, results_in_turn / 2);
}

// The pageable copy's staging is done on the host; the thread waits for the copy's tail.
bool Model::loop_stage(HostThread& t) {
    if (t.busy(now_)) return false;
    GpuOp& op = gpu_.op(pending_op_);
    if (last_staged(op.kind) < staging_started_) last_staged(op.kind) = now_;  // the staging's copy is over
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

}  // namespace pinscope::model::internal
