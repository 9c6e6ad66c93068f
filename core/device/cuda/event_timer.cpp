#include "core/device/cuda/event_timer.h"

#include <fmt/format.h>

#include "core/device/cuda/cuda_check.h"

namespace pinscope::cuda {
namespace {

constexpr TimeNs kPollInterval = 1 * kNsPerMs;
constexpr TimeNs kAnchorLifetime = 2 * kNsPerS;  // float ms keep sub-microsecond steps up to ~8 s

LaneRole lane_role_of(SpanKind kind) {
    return kind == SpanKind::h2d      ? LaneRole::h2d
           : kind == SpanKind::kernel ? LaneRole::kernel
                                      : LaneRole::d2h;
}

}  // namespace

EventTimer::Anchor::~Anchor() {
    if (event) check_quietly(cudaEventDestroy(event), "cudaEventDestroy");
}

EventTimer::EventTimer(Trace& trace, int ordinal, std::string why_not_cupti)
    : trace_(trace),
      ordinal_(ordinal),
      why_not_cupti_(std::move(why_not_cupti)),
      recorder_(trace.make_recorder()) {
    check(cudaStreamCreateWithFlags(&anchor_stream_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    anchor_ = new_anchor();
    anchor_renewed_ = now_ns();
    poller_ = std::make_unique<PeriodicThread>(kPollInterval, [this] { poll(); });
}

EventTimer::~EventTimer() {
    poller_.reset();
    // Whatever is still pending was issued on streams that are synchronised or gone: wait for it.
    for (Pending& p : pending_) check_quietly(cudaEventSynchronize(p.end), "cudaEventSynchronize");
    record_completed();
    for (Pending& p : pending_) reuse(p);
    for (auto& [stream, event] : open_) free_events_.push_back(event);
    for (cudaEvent_t event : free_events_) check_quietly(cudaEventDestroy(event), "cudaEventDestroy");
    anchor_.reset();
    check_quietly(cudaStreamDestroy(anchor_stream_), "cudaStreamDestroy");
}

std::shared_ptr<EventTimer::Anchor> EventTimer::new_anchor() {
    auto anchor = std::make_shared<Anchor>();
    check(cudaEventCreate(&anchor->event), "cudaEventCreate");
    // The event runs on an idle stream between the two host readings; the middle is the best guess.
    const TimeNs before = now_ns();
    check(cudaEventRecord(anchor->event, anchor_stream_), "cudaEventRecord");
    check(cudaEventSynchronize(anchor->event), "cudaEventSynchronize");
    anchor->host_time = before + (now_ns() - before) / 2;
    return anchor;
}

cudaEvent_t EventTimer::take_event() {
    if (!free_events_.empty()) {
        cudaEvent_t event = free_events_.back();
        free_events_.pop_back();
        return event;
    }
    cudaEvent_t event = nullptr;
    check(cudaEventCreate(&event), "cudaEventCreate");
    return event;
}

void EventTimer::reuse(Pending& pending) {
    free_events_.push_back(pending.start);
    free_events_.push_back(pending.end);
    pending.start = pending.end = nullptr;
}

void EventTimer::add_stream(cudaStream_t stream, int index) {
    std::lock_guard lock(mutex_);
    index_of_[stream] = index;
}

void EventTimer::before(const GpuOp&, cudaStream_t stream) {
    cudaEvent_t start;
    {
        std::lock_guard lock(mutex_);
        start = take_event();
        open_[stream] = start;
    }
    check(cudaEventRecord(start, stream), "cudaEventRecord");
}

void EventTimer::after(const GpuOp& op, cudaStream_t stream) {
    cudaEvent_t end;
    {
        std::lock_guard lock(mutex_);
        end = take_event();
    }
    check(cudaEventRecord(end, stream), "cudaEventRecord");
    Pending pending;
    pending.end = end;
    pending.span.kind = op.kind;
    pending.span.batch = op.batch;
    pending.span.bytes = op.bytes;
    pending.span.memory = op.kind == SpanKind::kernel ? HostMemory::none : op.memory;
    std::lock_guard lock(mutex_);
    auto index = index_of_.find(stream);
    pending.span.lane = trace_.lanes().device_lane(lane_role_of(op.kind),
                                                   index == index_of_.end() ? 0 : index->second, ordinal_);
    pending.start = open_.at(stream);
    open_.erase(stream);
    pending.anchor = anchor_;
    pending_.push_back(std::move(pending));
}

size_t EventTimer::record_completed() {
    std::lock_guard poll(poll_mutex_);
    std::deque<Pending> work;
    {
        std::lock_guard lock(mutex_);
        work.swap(pending_);
    }
    std::deque<Pending> unfinished;
    std::vector<Pending> done;
    for (Pending& p : work) {
        if (cudaEventQuery(p.end) != cudaSuccess) {
            unfinished.push_back(std::move(p));
            continue;
        }
        float start_ms = 0, end_ms = 0;
        const bool timed = cudaEventElapsedTime(&start_ms, p.anchor->event, p.start) == cudaSuccess &&
                           cudaEventElapsedTime(&end_ms, p.anchor->event, p.end) == cudaSuccess;
        if (timed) {
            p.span.start = p.anchor->host_time + static_cast<TimeNs>(static_cast<double>(start_ms) * 1e6);
            p.span.end = p.anchor->host_time + static_cast<TimeNs>(static_cast<double>(end_ms) * 1e6);
            recorder_->span(p.span);
        }
        done.push_back(std::move(p));
    }
    std::lock_guard lock(mutex_);
    for (Pending& p : done) {
        if (p.span.end != 0)
            ++stats_.spans;
        else
            ++stats_.untimed;
        reuse(p);
    }
    // Still running: back in front of what was issued meanwhile, keeping issue order.
    pending_.insert(pending_.begin(), std::make_move_iterator(unfinished.begin()),
                    std::make_move_iterator(unfinished.end()));
    return done.size();
}

void EventTimer::flush() {
    record_completed();
}

void EventTimer::poll() {
    record_completed();
    if (now_ns() - anchor_renewed_ <= kAnchorLifetime) return;
    try {
        // The poller is a thread of its own: its current device must be ours for the anchor's event to
        // be timed against our events.
        check(cudaSetDevice(ordinal_), "cudaSetDevice");
        auto anchor = new_anchor();
        std::lock_guard lock(mutex_);
        anchor_ = std::move(anchor);
    } catch (const std::exception&) {
        // A failing GPU: the issuing thread's own calls report it; keep the old anchor.
    }
    anchor_renewed_ = now_ns();
}

std::string EventTimer::describe() const {
    return "GPU spans from CUDA events (" + why_not_cupti_ + ")";
}

ActivityStats EventTimer::stats() const {
    std::lock_guard lock(mutex_);
    return stats_;
}

}  // namespace pinscope::cuda
