// The pipeline model's workers and pin thread (the class: pipeline_model_internal.h).
#include "core/model/pipeline_model_internal.h"

#include <algorithm>

namespace pinscope::model::internal {

// What a batch's samples cost together, in multiples of one sample's decode_us and io_us: each sample's
// jitter averages out over a batch, a straggler batch costs straggler_factor times more (dataset.cpp).
double Model::sample_cost_scale(int64_t index) const {
    const int64_t every = config_.straggler_every;
    const bool straggler = every > 0 && index % every == every - 1;
    return config_.batch_size * (straggler ? config_.straggler_factor : 1.0);
}

// A batch's io: each sample sleeps its io_us, and each sleep ends a little late: the later, the longer
// it is and the more workers sleep at once (the train loop's thread when there are none). The part of the
// lateness the sleeper spends on a core is not waiting: io_cpu_ns() charges it as work.
double Model::io_ns(int64_t index) const {
    if (config_.io_us <= 0) return 0;
    const double waiting_us = host_.sleep_overshoot.at(io_sleepers(), config_.io_us) -
                              host_.sleep_overshoot.cpu_at(io_sleepers(), config_.io_us);
    return (config_.io_us * sample_cost_scale(index) + waiting_us * config_.batch_size) * 1e3;
}

// The cores' worth of time a batch's sleeps, lasting `io_ns` in all, take from the working threads.
double Model::io_load(double io_ns) const {
    if (io_ns <= 0) return 0;
    const double us = host_.sleep_overshoot.others_cpu_at(io_sleepers(), config_.io_us);
    return std::min(1.0, us * 1e3 * static_cast<double>(config_.batch_size) / io_ns);
}

// A batch's sleeps' own CPU time (arming the timer, switching out and back in): on idle cores it only
// ends the sleeps late, as measured; on busy ones the other threads wait for it.
double Model::io_cpu_ns() const {
    if (config_.io_us <= 0) return 0;
    return host_.sleep_overshoot.cpu_at(io_sleepers(), config_.io_us) * config_.batch_size * 1e3;
}

// The rate a worker converts at, by dtype and store kind. Inline loading (no workers) converts into the
// buffer it freed last, as the rates' reused curves do.
const ByteRateCurve& Model::convert_curve(const PipelineConfig& config, const HostRates& host) {
    const bool inline_loading = config.num_workers == 0;
    switch (config.transfer_dtype) {
        case TransferDtype::uint8:
            if (writes_around_the_cache(config))
                return inline_loading ? host.convert_uint8_streaming_reused : host.convert_uint8_streaming;
            return inline_loading ? host.convert_uint8_reused : host.convert_uint8;
        case TransferDtype::float16:
            return inline_loading ? host.convert_half_reused : host.convert_half;
        case TransferDtype::bfloat16:
            return inline_loading ? host.convert_bfloat16_reused : host.convert_bfloat16;
        case TransferDtype::float32:
            break;
    }
    if (writes_around_the_cache(config))
        return inline_loading ? host.convert_streaming_reused : host.convert_streaming;
    return inline_loading ? host.convert_plain_reused : host.convert_plain;
}

double Model::convert_ns(int64_t index) {
    return convert_ns_ + (batch(index).fresh_buffer ? first_touch_ns_ : 0);
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
            const double io = io_ns(t.batch);
            t.sleep(now_, io, io_load(io));
            t.step = 1;
            return true;
        }
        case 1:
            t.work(config_.decode_us * 1e3 * sample_cost_scale(t.batch) + io_cpu_ns());
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

// The pin thread: copies each collated batch into pinned memory. The real one takes them in arrival order;
// here, with the loop taking batches in order, the lowest index waiting goes first. Workers that run in
// lock-step finish in an order that changes from run to run by far more than the model's microseconds,
// and the model's exact timings made it the worst order every time: at start-up the worker that had paid
// the pin thread's wake-up finished its second batch 3 us after the other fifteen, the pin thread pinned
// those fifteen first, each into a fresh pinned buffer (a first touch: 36 ms for 50 MB on the GPU
// machine's host), while the loop waited for the one batch it needed, and the run's first second went on
// it (seed 1515's #163: 952 samples/s predicted with that host's rates, 1,301 to 1,606 measured; 1,400
// now). Batch order is the best case, not the average one; docs/predict.md has what it moved.
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
    if (config_.in_order) {
        const auto waiting = pin_queue_.begin() + static_cast<std::ptrdiff_t>(pin_head_);
        std::iter_swap(waiting, std::min_element(waiting, pin_queue_.end()));
    }
    t.batch = pin_queue_[pin_head_++];
    t.work(pin_ns(t.batch), pin_bus_);
    t.step = 1;
    return true;
}

}  // namespace pinscope::model::internal
