#include "core/device/sim/sim_device.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include <fmt/format.h>
#include <sys/mman.h>

#include "core/device/device_call_cost.h"
#include "core/device/page_aligned.h"
#include "core/trace/precise_sleep.h"
#include "core/trace/slow_motion.h"
#include "core/units/units.h"

// Index of this file:
// [SECTION] Helpers: lanes, the cost of a call
// [SECTION] Construction
// [SECTION] Memory: buffers, streams and events
// [SECTION] Work: copies, kernels, events, synchronisation
// [SECTION] Waiting for the model
// [SECTION] The model: engines, rates and completions

namespace pinscope {
namespace {

constexpr TimeNs kNever = std::numeric_limits<TimeNs>::max();
// How late the device thread may note a completion that no caller has (run_device_thread says why).
constexpr TimeNs kDeviceThreadGrace = 50 * kNsPerUs;

//------------------------------------------------------------------------------------------------------------
// [SECTION] Helpers: lanes, the cost of a call
//------------------------------------------------------------------------------------------------------------

LaneRole lane_role_of(int slot) {
    return slot == 0 ? LaneRole::h2d : slot == 1 ? LaneRole::kernel : LaneRole::d2h;
}

// Issuing work costs the calling thread time on a real GPU too (the driver builds and submits each
// command): the calibration's host_call_us, spent here as CPU work before the call takes effect.
void spend_host_call(double us) {
    if (us <= 0) return;
    spin_until_ns(now_ns() + us_to_ns(us));
}

// What the model's own bookkeeping costs a caller per call on this machine (locking, advancing the
// model, waking the device thread), measured once per process on a scratch device that charges nothing.
double model_cost_per_call_us() {
    static const double cost = [] {
        Calibration free_calls = builtin_calibration();
        free_calls.host_call_us = 0;
        Trace scratch;
        SimDevice device(scratch, free_calls);
        return time_device_call_us(device, /*batches=*/200, /*rounds=*/3);
    }();
    return cost;
}

}  // namespace

//------------------------------------------------------------------------------------------------------------
// [SECTION] Construction
//------------------------------------------------------------------------------------------------------------

SimDevice::SimDevice(Trace& trace, Calibration calibration, double time_scale, int ordinal, bool cold_start)
    : calibration_(std::move(calibration)),
      time_scale_(std::max(1.0, time_scale)),
      ordinal_(ordinal),
      trace_(trace),
      cold_start_(cold_start),
      context_ready_(!cold_start),
      startup_spans_(trace),
      recorder_(trace.make_recorder()),
      engines_(calibration_.copy_engines),
      host_writes_(engine_rules::HostWriteLoad::kWindowNs * time_scale_) {
    info_.kind = "sim";
    info_.name = "simulated GPU (" + calibration_.name + ")";
    info_.copy_engines = calibration_.copy_engines;
    for (const CopyCurve::Point& p : calibration_.h2d_pinned.points())
        info_.h2d_peak_gbps = std::max(info_.h2d_peak_gbps, calibration_.h2d_pinned.gbps(p.bytes));
    info_.d2h_peak_gbps = calibration_.d2h_pinned.gbps(256.0 * 1024 * 1024);
    info_.memory_bytes = 80LL << 30;
    // A call should cost what the measured GPU's did, the model's own bookkeeping included, so that a
    // host-bound pipeline (small batches, tiny kernels) runs at the measured host's pace.
    if (calibration_.host_call_us > 0)
        call_charge_us_ = std::max(0.0, calibration_.host_call_us * time_scale_ - model_cost_per_call_us());
    clock_ = now_ns();
    device_thread_ = std::thread([this] { run_device_thread(); });
}

// The first CUDA call of a fresh process starts the driver and creates the context, and the CUDA
// runtime makes every other thread's first call wait for it: PyTorch's pin thread pinning its first
// batch, or a naive benchmark's first .to("cuda").
void SimDevice::ensure_context() {
    if (context_ready_.load(std::memory_order_acquire)) return;
    std::lock_guard lock(context_mutex_);
    if (context_ready_.load(std::memory_order_relaxed)) return;
    spend_startup("CUDA context: the process's first CUDA call", calibration_.context_create_s);
    context_ready_.store(true, std::memory_order_release);
}

// Start-up work is the calling thread's: the driver does it in the call.
void SimDevice::spend_startup(std::string_view what, double seconds) {
    const TimeNs start = now_ns();
    sleep_for_ns(static_cast<TimeNs>(seconds * time_scale_ * 1e9));
    startup_spans_.record(what, start, now_ns());
}

SimDevice::~SimDevice() {
    {
        std::lock_guard lock(device_thread_mutex_);
        stopping_ = true;
    }
    device_thread_wake_.notify_all();
    device_thread_.join();
}

//------------------------------------------------------------------------------------------------------------
// [SECTION] Memory: buffers, streams and events
//------------------------------------------------------------------------------------------------------------

namespace {

size_t whole_pages(size_t bytes) {
    return std::max(kPageBytes, (bytes + kPageBytes - 1) / kPageBytes * kPageBytes);
}

}  // namespace

// Fresh pages from the kernel every time, as cudaHostAlloc's and as PyTorch's large CPU tensors' are (glibc
// maps big blocks): a buffer's first batch pays its page faults in every run, not only in a process's
// first, so the predictor (core/model) can count on it.
std::byte* SimDevice::raw_allocate_host(size_t bytes, HostMemory memory) {
    if (cold_start_ && memory == HostMemory::pinned) {  // only pinning needs the driver
        ensure_context();
        spend_startup(fmt::format("cudaHostAlloc {}: a fresh pinned allocation",
                                  format_bytes(static_cast<double>(bytes))),
                      calibration_.pin_alloc_seconds(static_cast<double>(bytes)));
    }
    const size_t rounded = whole_pages(bytes);
    void* mapped = mmap(nullptr, rounded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    auto* data = mapped == MAP_FAILED ? nullptr : static_cast<std::byte*>(mapped);
    if (!data)
        throw DeviceError(
            fmt::format("cannot allocate {} of {} host memory; use a smaller batch or fewer workers.",
                        format_bytes(static_cast<double>(bytes)), host_memory_name(memory)));
    // Page-locked memory is resident from the start; pageable is not. Faulted in as the CUDA device does
    // before it registers (pinned_memory.cpp): a memset of every byte doubled the memory traffic of a
    // loader's start.
    if (memory == HostMemory::pinned) touch_each_page(data, rounded);
    return data;
}

void SimDevice::raw_free_host(std::byte* data, size_t bytes, HostMemory) {
    munmap(data, whole_pages(bytes));
}

// Device memory is not backed: the model only needs sizes. The token is unique and never dereferenced.
void* SimDevice::raw_allocate_device(size_t bytes) {
    if (cold_start_) {
        ensure_context();
        spend_startup(fmt::format("cudaMalloc {}", format_bytes(static_cast<double>(bytes))),
                      calibration_.device_alloc_s);
    }
    std::lock_guard lock(mutex_);
    return reinterpret_cast<void*>(next_handle_++ * kPageBytes);
}

void SimDevice::raw_free_device(void*, size_t) {}

uintptr_t SimDevice::raw_create_stream(int index) {
    ensure_context();
    SimStream stream;
    stream.index = index;
    for (int slot = 0; slot < 3; ++slot)
        stream.lanes[slot] = trace_.lanes().device_lane(lane_role_of(slot), index, ordinal_);
    std::lock_guard lock(mutex_);
    const uintptr_t handle = next_handle_++;
    streams_.emplace(handle, std::move(stream));
    return handle;
}

void SimDevice::raw_destroy_stream(uintptr_t handle) {
    Lock lock(mutex_);
    auto it = streams_.find(handle);
    assert(it != streams_.end());
    // Like cudaStreamDestroy, work already issued still completes; here we wait for it so the model
    // never holds ops of a stream that is gone.
    if (!it->second.queue.empty()) wait_until_done(lock, Marker{handle, it->second.queue.back().seq});
    streams_.erase(handle);
}

uintptr_t SimDevice::raw_create_event() {
    ensure_context();
    std::lock_guard lock(mutex_);
    const uintptr_t handle = next_handle_++;
    events_.emplace(handle, Marker{});
    return handle;
}

void SimDevice::raw_destroy_event(uintptr_t handle) {
    std::lock_guard lock(mutex_);
    events_.erase(handle);
}

//------------------------------------------------------------------------------------------------------------
// [SECTION] Work: copies, kernels, events, synchronisation
//------------------------------------------------------------------------------------------------------------

SimDevice::SimStream& SimDevice::stream_of(const Stream& stream) {
    auto it = streams_.find(stream.handle());
    assert(it != streams_.end() && "stream used after it was destroyed, or from another device");
    return it->second;
}

uint64_t SimDevice::enqueue(Lock&, Stream& stream, Op op) {
    advance_to(now_ns());
    SimStream& s = stream_of(stream);
    op.seq = s.next_seq++;
    op.ticket = next_ticket_++;
    if (cut_) {  // the run is over: the op completes without running (the streams are empty since the cut)
        s.done_seq = op.seq;
        return op.seq;
    }
    s.queue.push_back(op);
    // Starts it at once if its engine is free. The device thread is not woken (run_device_thread says why).
    advance_to(clock_);
    return op.seq;
}

// A copy between `host` and the device: staged by the caller when the host memory is pageable.
SimDevice::Op SimDevice::copy_op(OpKind kind, const HostBuffer& host, size_t bytes, int64_t batch) {
    Op op;
    op.kind = kind;
    op.memory = host.memory();
    op.bytes = static_cast<double>(bytes);
    op.batch = batch;
    op.staging = !host.pinned();
    return op;
}

// The device side of a copy is a token on the simulated GPU: only its bounds are checked.
void SimDevice::copy_to_device([[maybe_unused]] const DeviceBuffer& dst, [[maybe_unused]] size_t dst_offset,
                               const HostBuffer& src, size_t src_offset, size_t bytes, Stream& stream,
                               bool non_blocking, int64_t batch) {
    spend_host_call(call_charge_us_);
    assert(dst_offset + bytes <= dst.size() && src_offset + bytes <= src.size());
    const Op op = copy_op(OpKind::h2d, src, bytes, batch);
    Lock lock(mutex_);
    const Marker marker{stream.handle(), enqueue(lock, stream, op)};
    // Pageable memory must be staged through a bounce buffer: the caller does it, non_blocking or not.
    // As with CUDA, a non_blocking call returns once the last chunk is staged, while that chunk's DMA
    // goes on.
    if (!src.pinned()) {
        stage_pageable(lock, marker, const_cast<std::byte*>(src.data()) + src_offset, bytes,
                       StagingDirection::to_device);
        if (non_blocking) return;
    }
    if (!non_blocking || !src.pinned()) wait_until_done(lock, marker);
}

void SimDevice::copy_to_host(HostBuffer& dst, size_t dst_offset, [[maybe_unused]] const DeviceBuffer& src,
                             [[maybe_unused]] size_t src_offset, size_t bytes, Stream& stream,
                             bool non_blocking, int64_t batch) {
    spend_host_call(call_charge_us_);
    assert(dst_offset + bytes <= dst.size() && src_offset + bytes <= src.size());
    const Op op = copy_op(OpKind::d2h, dst, bytes, batch);
    Lock lock(mutex_);
    const Marker marker{stream.handle(), enqueue(lock, stream, op)};
    if (!dst.pinned())
        stage_pageable(lock, marker, dst.data() + dst_offset, bytes, StagingDirection::to_host);
    if (!non_blocking || !dst.pinned()) wait_until_done(lock, marker);
}

void SimDevice::launch_kernel(const KernelWork& work, Stream& stream) {
    spend_host_call(call_charge_us_);
    Op op;
    op.kind = OpKind::kernel;
    op.bytes = static_cast<double>(work.input_bytes);
    // The normalize kernel runs as long as the calibrated GPU takes to read and write the batch.
    const double us = work.normalize ? calibration_.normalize_seconds(op.bytes) * 1e6 : work.duration_us;
    op.duration = us_to_ns(us * time_scale_);
    op.batch = work.batch;
    Lock lock(mutex_);
    enqueue(lock, stream, op);
}

void SimDevice::record(Event& event, Stream& stream) {
    spend_host_call(call_charge_us_);
    Op op;
    op.kind = OpKind::record;
    Lock lock(mutex_);
    const uint64_t seq = enqueue(lock, stream, op);
    events_[event.handle()] = Marker{stream.handle(), seq};
}

void SimDevice::wait(Stream& stream, const Event& event) {
    spend_host_call(call_charge_us_);
    Op op;
    op.kind = OpKind::wait;
    Lock lock(mutex_);
    op.awaited = events_.at(event.handle());  // the event as recorded now, as cudaStreamWaitEvent does
    enqueue(lock, stream, op);
}

bool SimDevice::ready(const Event& event) {
    spend_host_call(call_charge_us_);  // cudaEventQuery is a driver call too
    std::lock_guard lock(mutex_);
    advance_to(now_ns());
    return done(events_.at(event.handle()));
}

void SimDevice::synchronize(const Event& event) {
    Lock lock(mutex_);
    wait_until_done(lock, events_.at(event.handle()));
}

void SimDevice::synchronize(Stream& stream) {
    Lock lock(mutex_);
    SimStream& s = stream_of(stream);
    wait_until_done(lock, Marker{stream.handle(), s.next_seq - 1});
}

void SimDevice::synchronize() {
    Lock lock(mutex_);
    std::vector<Marker> last;
    for (const auto& [handle, s] : streams_) last.push_back(Marker{handle, s.next_seq - 1});
    for (const Marker& m : last) wait_until_done(lock, m);
}

void SimDevice::cut_work() {
    {
        Lock lock(mutex_);
        advance_to(now_ns());  // what finished before now ends whole
        cut_everything(clock_);
    }
    cut_made_.notify_all();
}

//------------------------------------------------------------------------------------------------------------
// [SECTION] Waiting for the model
//------------------------------------------------------------------------------------------------------------

bool SimDevice::done(const Marker& marker) const {
    if (marker.stream == 0) return true;
    auto it = streams_.find(marker.stream);
    return it == streams_.end() || it->second.done_seq >= marker.seq;
}

// Sleeps until `wake` (model time), when the caller advances the model and looks again. A long wait
// (a 10 s kernel) sleeps on a condition that cut_work() ends; only its last stretch is timed precisely.
void SimDevice::sleep_until_model(Lock& lock, TimeNs wake) {
    // kNever means what the caller waits for sits behind work another thread has yet to issue; the
    // next enqueue advances the model, so polling at a coarse interval is enough.
    if (wake == kNever) wake = now_ns() + 200 * kNsPerUs;
    constexpr TimeNs kPreciseStretch = 2 * kNsPerMs;
    if (wake - now_ns() > kPreciseStretch) {
        reduce_timer_slack();
        cut_made_.wait_until(
            lock, std::chrono::steady_clock::time_point(std::chrono::nanoseconds(wake - kPreciseStretch)),
            [&] { return cut_; });
        return;
    }
    lock.unlock();
    sleep_until_ns(wake);
    lock.lock();
}

void SimDevice::wait_until_done(Lock& lock, const Marker& marker) {
    for (;;) {
        advance_to(now_ns());
        if (done(marker)) return;
        sleep_until_model(lock, next_completion());
    }
}

bool SimDevice::started(const Marker& marker) const {
    auto it = streams_.find(marker.stream);
    if (it == streams_.end() || it->second.done_seq >= marker.seq) return true;
    const std::deque<Op>& queue = it->second.queue;
    return !queue.empty() && queue.front().seq == marker.seq && queue.front().running;
}

SimDevice::Op* SimDevice::running_op(const Marker& marker) {
    auto it = streams_.find(marker.stream);
    if (it == streams_.end() || it->second.queue.empty()) return nullptr;
    Op& front = it->second.queue.front();
    return front.seq == marker.seq && front.running ? &front : nullptr;
}

void SimDevice::wait_until_started(Lock& lock, const Marker& marker) {
    for (;;) {
        advance_to(now_ns());
        if (started(marker)) return;
        sleep_until_model(lock, next_completion());
    }
}

// As the driver does (engine_rules.h's pageable rules). To the device: wait until the stream reaches the
// copy, then stage it chunk by chunk; only the last chunk's DMA is left when the staging ends. On the
// timeline the engine's span starts with the first chunk's DMA, as CUPTI draws a real pageable copy: a copy
// of one chunk is a short DMA after the host's staging, not a long span beside it. To the host: the engine
// fills the bounce buffers first, then the caller copies them out (the driver overlaps the two chunk by
// chunk; for results of one chunk or less, the usual, it is the same). The staging is this host's memcpy,
// as the pin thread's copy is, plus what the driver's staging costs over it (the probe's, by size; the
// driver's runs 25-40% slower than a memcpy on an H200 host); beyond the first chunk it
// takes at least the calibrated pageable time (holding one-chunk copies to it too made CIFAR-like
// pageable runs 30% slow on the H100 host itself).
void SimDevice::stage_pageable(Lock& lock, const Marker& marker, std::byte* host, size_t bytes,
                               StagingDirection direction) {
    const bool to_device = direction == StagingDirection::to_device;
    if (to_device)
        wait_until_started(lock, marker);
    else
        wait_until_moved(lock, marker);
    const TimeNs staging_start = clock_;
    const engine_rules::Work work = to_device ? engine_rules::Work::h2d : engine_rules::Work::d2h;
    const double floor_s =
        engine_rules::pageable_floor_seconds(calibration_, work, static_cast<double>(bytes));
    const TimeNs held_until = staging_start + static_cast<TimeNs>(floor_s * 1e9 * time_scale_);
    lock.unlock();
    {
        StretchedWork slowed(time_scale_, &cutting_);  // slow motion's stretch ends with the run
        PageableStaging::stage(host, bytes, direction);
        spend_host_call(engine_rules::pageable_extra_us(calibration_, work, static_cast<double>(bytes)));
    }
    constexpr TimeNs kCheckCut = 1'000'000;  // a held caller notices the run's end within a millisecond
    while (!cutting_.load(std::memory_order_relaxed) && now_ns() < held_until)
        sleep_until_ns(std::min(held_until, now_ns() + kCheckCut));
    lock.lock();
    advance_to(now_ns());
    Op* staged = running_op(marker);
    if (!staged) return;  // cut by the run's end
    staged->staging = false;
    if (to_device) {
        staged->start = static_cast<TimeNs>(engine_rules::first_dma_start(
            static_cast<double>(staging_start), static_cast<double>(clock_), staged->bytes));
        staged->remaining = engine_rules::first_chunk_bytes(staged->bytes);
        staged->solo_rate = engine_rules::staged_copy_rate(calibration_, staged->bytes, host_writes_,
                                                           static_cast<double>(clock_), time_scale_);
    }
    advance_to(clock_);  // completes it now if nothing is left to move
}

void SimDevice::wait_until_moved(Lock& lock, const Marker& marker) {
    for (;;) {
        advance_to(now_ns());
        if (done(marker)) return;
        const Op* op = running_op(marker);
        if (op && op->remaining <= 0) return;
        sleep_until_model(lock, next_completion());
    }
}

//------------------------------------------------------------------------------------------------------------
// [SECTION] The model: engines, rates and completions
//------------------------------------------------------------------------------------------------------------

void SimDevice::advance_to(TimeNs now) {
    now = std::max(now, clock_);
    for (;;) {
        start_ready_ops();
        update_rates();
        const TimeNs next = next_completion();
        move_copies_to(std::min(next, now));
        if (next > now) {
            next_due_.store(next, std::memory_order_release);
            return;
        }
        for (auto& [handle, s] : streams_) {
            if (s.queue.empty() || !s.queue.front().running) continue;
            const Op& op = s.queue.front();
            const bool finished = op.kind == OpKind::kernel
                                      ? op.start + op.duration <= clock_
                                      : !op.staging && op.remaining <= op.rate * 0.5;  // under half a ns left
            if (finished) complete(s);
        }
    }
}

// Moves the clock to `until` and every running copy's bytes with it, in one pass over the streams (the
// engine benchmark's train loop calls this for every device call). A copy has moved its bytes when less
// than half a nanosecond's worth is left: `moved` notes when.
void SimDevice::move_copies_to(TimeNs until) {
    const double dt = static_cast<double>(until - clock_);
    clock_ = until;
    for (auto& [handle, s] : streams_) {
        if (s.queue.empty()) continue;
        Op& op = s.queue.front();
        if (!op.running || op.kind == OpKind::kernel) continue;
        if (dt > 0) op.remaining = std::max(0.0, op.remaining - op.rate * dt);
        if (op.moved == 0 && op.remaining <= op.rate * 0.5) op.moved = clock_;
    }
}

engine_rules::Work SimDevice::work_of(OpKind kind) {
    using engine_rules::Work;
    return kind == OpKind::h2d ? Work::h2d : kind == OpKind::d2h ? Work::d2h : Work::kernel;
}

// With one copy engine, copies run strictly in issue order across streams (engine_rules.h): the lowest
// ticket of a copy not yet started is the only one that may.
uint64_t SimDevice::oldest_waiting_copy() const {
    uint64_t oldest = engine_rules::kNoWaitingCopy;
    for (const auto& [handle, s] : streams_)
        for (const Op& op : s.queue)
            if ((op.kind == OpKind::h2d || op.kind == OpKind::d2h) && !op.running) {
                oldest = std::min(oldest, op.ticket);
                break;  // a stream's copies are in ticket order
            }
    return oldest;
}

void SimDevice::start_ready_ops() {
    for (bool changed = true; changed;) {
        changed = false;
        const uint64_t oldest_copy =
            engines_.copies_in_issue_order() ? oldest_waiting_copy() : engine_rules::kNoWaitingCopy;
        // Engines go to ready work in issue order, across streams.
        std::vector<std::pair<uint64_t, SimStream*>> ready;
        for (auto& [handle, s] : streams_)
            if (!s.queue.empty() && !s.queue.front().running) ready.emplace_back(s.queue.front().ticket, &s);
        std::sort(ready.begin(), ready.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        for (auto& [ticket, s] : ready) {
            Op& op = s->queue.front();
            switch (op.kind) {
                case OpKind::record:
                    complete(*s), changed = true;
                    break;
                case OpKind::wait:
                    if (done(op.awaited)) complete(*s), changed = true;
                    break;
                case OpKind::kernel:
                case OpKind::h2d:
                case OpKind::d2h: {
                    const engine_rules::Work work = work_of(op.kind);
                    if (!engines_.can_start(work, op.ticket, oldest_copy)) break;
                    engines_.start(work);
                    op.running = true;
                    op.start = clock_;
                    if (engine_rules::is_copy(work)) {
                        op.remaining = op.bytes;
                        op.solo_rate = engine_rules::starting_copy_rate(
                            calibration_, work, op.staging, op.bytes, host_writes_,
                            static_cast<double>(clock_), time_scale_);
                    }
                    break;
                }
            }
        }
    }
}

// The running copies share the links as engine_rules.h says.
void SimDevice::update_rates() {
    const auto for_each_head = [&](auto&& visit) {
        for (auto& [handle, s] : streams_)
            if (!s.queue.empty()) visit(s.queue.front());
    };
    engine_rules::share_links(
        for_each_head, [](const Op& op) { return op.kind == OpKind::kernel; },
        [](const Op& op) { return op.kind == OpKind::h2d; },
        engine_rules::bidir_bytes_per_ns(calibration_, host_writes_, static_cast<double>(clock_),
                                         time_scale_));
}

TimeNs SimDevice::next_completion() const {
    TimeNs next = kNever;
    for (const auto& [handle, s] : streams_) {
        if (s.queue.empty() || !s.queue.front().running) continue;
        const Op& op = s.queue.front();
        TimeNs end;
        if (op.kind == OpKind::kernel)
            end = op.start + op.duration;
        else if (op.staging && (op.remaining <= 0 || op.rate <= 0))
            continue;  // the host has not finished staging: it says when
        else if (op.remaining > 0)
            end = clock_ + static_cast<TimeNs>(std::ceil(op.remaining / op.rate));
        else
            end = clock_;
        next = std::min(next, end);
    }
    return next;
}

void SimDevice::complete(SimStream& s) {
    const Op op = s.queue.front();
    s.queue.pop_front();
    s.done_seq = op.seq;
    if (op.kind == OpKind::record || op.kind == OpKind::wait) return;
    engines_.finish(work_of(op.kind));
    // Into pageable memory the engine's part ends when the bytes are in the driver's bounce buffer; the
    // host copying them out shows as its own `stage` span, not as the engine copying.
    const bool staged_out = op.kind == OpKind::d2h && op.memory == HostMemory::pageable && op.moved > 0;
    record_span(s, op, staged_out ? op.moved : clock_, false);
}

void SimDevice::record_span(const SimStream& s, const Op& op, TimeNs end, bool cut) {
    Span span;
    span.start = op.start;
    span.end = end;
    span.batch = op.batch;
    // A cut copy moved only part of its bytes: its span says how many, so its GB/s stays true.
    span.bytes = static_cast<uint64_t>(cut && op.kind != OpKind::kernel ? op.bytes - op.remaining : op.bytes);
    span.memory = op.memory;
    span.cut = cut;
    const int slot = op.kind == OpKind::h2d ? 0 : op.kind == OpKind::kernel ? 1 : 2;
    span.kind = op.kind == OpKind::h2d      ? SpanKind::h2d
                : op.kind == OpKind::kernel ? SpanKind::kernel
                                            : SpanKind::d2h;
    span.lane = s.lanes[slot];
    recorder_->span(span);
}

// Ends every op where it stands at `at` (the model's clock): a running kernel or copy is recorded up to
// there and marked cut; ops not started are dropped. Later ops complete without running (enqueue).
void SimDevice::cut_everything(TimeNs at) {
    cut_ = true;
    cutting_.store(true, std::memory_order_relaxed);
    for (auto& [handle, s] : streams_) {
        for (const Op& op : s.queue) {
            const bool work = op.kind == OpKind::kernel || op.kind == OpKind::h2d || op.kind == OpKind::d2h;
            if (work && op.running) record_span(s, op, std::max(at, op.start), true);
            s.done_seq = op.seq;
        }
        s.queue.clear();
    }
    engines_.reset();
}

// The device thread only keeps the trace current while no caller advances the model: every call does
// (advance_to), and completions are noted at their modelled times however late the model is advanced. So
// the thread must never hold a caller up, and it keeps off the model's lock unless a completion is overdue:
// - Callers do not wake it. Each issue used to, where the device had been idle: on a host whose cores the
//   workers keep busy the woken thread then held the model's lock as the train loop made its next call,
//   the loop blocked on the lock, and having slept it queued for a core again. The kernel of a batch
//   started 1-5 ms after its copy had ended (2 workers, the pin thread, 48 MiB batches, this project's
//   2-core VM) where a GPU starts it at once, and the GPU's idle time went to "other" instead of the
//   loader (stall 0.66 measured, 0.99 predicted). An op issued to an idle device is seen within kIdleLook.
// - It reads when the next completion is due from next_due_, and takes the lock, only if it is free, when
//   that is a grace past: a busy pipeline's calls have usually noted it by then. Waking at the completion
//   itself made each completion a wake-up that contended for the lock with the train loop; without those
//   the engine benchmark ran 1.1x (inline) to 1.45x (4 workers) as fast on the H100 machine's 16-core host.
void SimDevice::run_device_thread() {
    constexpr TimeNs kIdleLook = 1 * kNsPerMs;
    reduce_timer_slack();
    std::unique_lock sleep(device_thread_mutex_);
    while (!stopping_.load(std::memory_order_relaxed)) {
        TimeNs due = next_due_.load(std::memory_order_acquire);
        if (due != kNever && now_ns() >= due + kDeviceThreadGrace) {
            Lock model(mutex_, std::try_to_lock);  // held: its holder is advancing the model
            if (model.owns_lock()) advance_to(now_ns());
            due = next_due_.load(std::memory_order_acquire);
        }
        const TimeNs look = now_ns() + kDeviceThreadGrace;
        const TimeNs wake = due == kNever ? now_ns() + kIdleLook : std::max(due + kDeviceThreadGrace, look);
        device_thread_wake_.wait_until(sleep,
                                       std::chrono::steady_clock::time_point(std::chrono::nanoseconds(wake)),
                                       [&] { return stopping_.load(std::memory_order_relaxed); });
    }
}

}  // namespace pinscope
