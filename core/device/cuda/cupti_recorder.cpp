#include "core/device/cuda/cupti_recorder.h"

#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

// Index of this file:
// [SECTION] CUPTI callbacks and registration
// [SECTION] Starting and stopping
// [SECTION] Streams and lanes
// [SECTION] Records: GPU spans, batch ids, giving up
// [SECTION] Reports

namespace pinscope::cuda {
namespace {

// CUPTI calls back through plain function pointers, registered once per process; they reach the
// recorder that is running now through this route. consume() runs under the lock, which makes the
// recorder's trace Recorder single-producer even when CUPTI's own thread and the flush thread both
// deliver buffers.
std::mutex g_route_mutex;
CuptiRecorder* g_active = nullptr;

constexpr size_t kBufferBytes = 128 * 1024;  // small, so a partly filled buffer is returned soon
constexpr uint64_t kGiveUpGenerations = 20;  // 2 s of flushes: a batch id that has not come will not

//------------------------------------------------------------------------------------------------------------
// [SECTION] CUPTI callbacks and registration
//------------------------------------------------------------------------------------------------------------

uint64_t CUPTIAPI steady_timestamp() {
    return static_cast<uint64_t>(now_ns());
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
    // Zeroed by calloc (fresh pages are zero), as CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER says.
    *buffer = static_cast<uint8_t*>(std::calloc(1, kBufferBytes));
    *size = *buffer ? kBufferBytes : 0;
    *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream_id, uint8_t* buffer, size_t, size_t valid) {
    {
        std::lock_guard lock(g_route_mutex);
        if (g_active) {
            size_t dropped = 0;
            const CuptiLibrary* cupti = CuptiLibrary::get(nullptr);
            if (cupti) cupti->dropped_records(context, stream_id, &dropped);
            g_active->consume(buffer, valid, dropped);
        }
    }
    std::free(buffer);
}

void CUPTIAPI ignore_callbacks(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

HostMemory memory_of(uint8_t kind) {
    switch (kind) {
        case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE:
            return HostMemory::pageable;
        case CUPTI_ACTIVITY_MEMORY_KIND_PINNED:
            return HostMemory::pinned;
        default:
            return HostMemory::none;
    }
}

// Once per process: the buffer callbacks and the clock (CUPTI wants the clock before any kind is on).
bool register_once(const CuptiLibrary& cupti, bool* have_clock, std::string* why) {
    static std::once_flag once;
    static CUptiResult result = CUPTI_SUCCESS;
    static bool clock = false;
    std::call_once(once, [&] {
        if (cupti.register_timestamp_callback)
            clock = cupti.register_timestamp_callback(steady_timestamp) == CUPTI_SUCCESS;
        uint8_t zeroed = 1;
        size_t value_size = sizeof(zeroed);
        if (auto set = cupti.set_attribute)
            set(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &value_size, &zeroed);
        result = cupti.register_callbacks(buffer_requested, buffer_completed);
    });
    *have_clock = clock;
    if (result != CUPTI_SUCCESS) *why = "CUPTI refused its buffer callbacks: " + cupti.message(result);
    return result == CUPTI_SUCCESS;
}

constexpr CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
                                         CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_MEMCPY,
                                         CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL};

}  // namespace

//------------------------------------------------------------------------------------------------------------
// [SECTION] Starting and stopping
//------------------------------------------------------------------------------------------------------------

std::unique_ptr<CuptiRecorder> CuptiRecorder::start(Trace& trace, std::string* why) {
    std::string reason;
    const CuptiLibrary* cupti = CuptiLibrary::get(&reason);
    if (!cupti) {
        *why = reason;
        return nullptr;
    }
    {
        std::lock_guard lock(g_route_mutex);
        if (g_active) {
            *why = "CUPTI is already recording another CUDA device in this process";
            return nullptr;
        }
    }
    // Subscribing first is how CUPTI clients keep out of each other's way; the answer names the
    // other tool (Nsight Systems, a PyTorch profiler, ...) when one is attached.
    CUpti_SubscriberHandle subscriber = nullptr;
    CUptiResult result;
    char other[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 1] = {};
    if (cupti->subscribe_v2) {
        CUpti_SubscriberParams params{};
        params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
        params.subscriberName = "pinscope";
        params.oldSubscriberName = other;
        params.oldSubscriberSize = sizeof(other) - 1;
        result = cupti->subscribe_v2(&subscriber, ignore_callbacks, nullptr, &params);
    } else {
        result = cupti->subscribe(&subscriber, ignore_callbacks, nullptr);
    }
    if (result == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
        *why = fmt::format("another profiler is using CUPTI ({})",
                           other[0] ? other : "it did not give its name");
        return nullptr;
    }
    if (result != CUPTI_SUCCESS) {
        *why = "CUPTI cannot start: " + cupti->message(result);
        return nullptr;
    }
    bool have_clock = false;
    if (!register_once(*cupti, &have_clock, why)) {
        cupti->unsubscribe(subscriber);
        return nullptr;
    }
    std::unique_ptr<CuptiRecorder> recorder(new CuptiRecorder(trace, *cupti));
    recorder->subscriber_ = subscriber;
    if (!have_clock) {
        // Older CUPTI: its own clock (CLOCK_REALTIME), moved onto ours by the offset seen now.
        uint64_t cupti_now = 0;
        cupti->get_timestamp(&cupti_now);
        recorder->clock_offset_ = now_ns() - static_cast<TimeNs>(cupti_now);
    }
    {
        std::lock_guard lock(g_route_mutex);
        g_active = recorder.get();
    }
    for (CUpti_ActivityKind kind : kKinds) {
        result = cupti->enable(kind);
        if (result != CUPTI_SUCCESS) {
            *why = fmt::format("CUPTI cannot record activity kind {}: {}", static_cast<int>(kind),
                               cupti->message(result));
            return nullptr;  // the destructor disables what was enabled and unsubscribes
        }
    }
    recorder->flusher_ =
        std::make_unique<PeriodicThread>(kFlushInterval, [r = recorder.get()] { r->flush(); });
    return recorder;
}

CuptiRecorder::CuptiRecorder(Trace& trace, const CuptiLibrary& cupti)
    : trace_(trace), cupti_(cupti), recorder_(trace.make_recorder()) {
    default_lanes_ = {trace.lanes().lane(LaneRole::h2d, 0), trace.lanes().lane(LaneRole::kernel, 0),
                      trace.lanes().lane(LaneRole::d2h, 0)};
}

CuptiRecorder::~CuptiRecorder() {
    flusher_.reset();
    finishing_ = true;
    cupti_.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    for (CUpti_ActivityKind kind : kKinds) cupti_.disable(kind);
    {
        std::lock_guard lock(g_route_mutex);
        expire_old();
        g_active = nullptr;
    }
    if (subscriber_) cupti_.unsubscribe(subscriber_);
}

void CuptiRecorder::flush() {
    cupti_.flush_all(0);  // completed records only: a forced flush would cut records still in flight
    std::lock_guard lock(g_route_mutex);
    ++generation_;
    expire_old();
}

//------------------------------------------------------------------------------------------------------------
// [SECTION] Streams and lanes
//------------------------------------------------------------------------------------------------------------

void CuptiRecorder::add_stream(cudaStream_t stream, int index) {
    uint32_t id = 0;
    if (cupti_.stream_id(nullptr, stream, 0, &id) != CUPTI_SUCCESS)
        return;  // its spans go to stream 0's lanes
    Lanes lanes{trace_.lanes().lane(LaneRole::h2d, index), trace_.lanes().lane(LaneRole::kernel, index),
                trace_.lanes().lane(LaneRole::d2h, index)};
    std::lock_guard lock(streams_mutex_);
    lanes_[id] = lanes;
}

CuptiRecorder::Lanes CuptiRecorder::lanes_of(uint32_t stream_id) {
    std::lock_guard lock(streams_mutex_);
    auto it = lanes_.find(stream_id);
    return it == lanes_.end() ? default_lanes_ : it->second;
}

void CuptiRecorder::before(const GpuOp& op, cudaStream_t) {
    cupti_.push_external_id(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, static_cast<uint64_t>(op.batch));
}

void CuptiRecorder::after(const GpuOp&, cudaStream_t) {
    uint64_t last = 0;
    cupti_.pop_external_id(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last);
}

//------------------------------------------------------------------------------------------------------------
// [SECTION] Records: GPU spans, batch ids, giving up
//------------------------------------------------------------------------------------------------------------

void CuptiRecorder::consume(uint8_t* buffer, size_t valid_bytes, size_t dropped) {
    stats_.dropped += dropped;
    CUpti_Activity* record = nullptr;
    while (cupti_.next_record(buffer, valid_bytes, &record) == CUPTI_SUCCESS) {
        switch (record->kind) {
            case CUPTI_ACTIVITY_KIND_MEMCPY: {
                const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
                const bool h2d = m->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
                if (!h2d && m->copyKind != CUPTI_ACTIVITY_MEMCPY_KIND_DTOH) break;  // not a copy we issue
                Span span;
                span.start = static_cast<TimeNs>(m->start);
                span.end = static_cast<TimeNs>(m->end);
                span.bytes = m->bytes;
                span.kind = h2d ? SpanKind::h2d : SpanKind::d2h;
                span.memory = memory_of(h2d ? m->srcKind : m->dstKind);
                on_gpu_record(m->correlationId, span, m->streamId);
                break;
            }
            case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
            case CUPTI_ACTIVITY_KIND_KERNEL: {
                const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
                Span span;
                span.start = static_cast<TimeNs>(k->start);
                span.end = static_cast<TimeNs>(k->end);
                span.kind = SpanKind::kernel;
                on_gpu_record(k->correlationId, span, k->streamId);
                break;
            }
            case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
                const auto* e = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(record);
                if (e->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0)
                    on_external(e->correlationId, e->externalId);
                break;
            }
            default:
                break;  // RUNTIME records only carry the correlation ids the others refer to
        }
    }
}

void CuptiRecorder::on_gpu_record(uint32_t correlation, Span span, uint32_t stream_id) {
    if (span.start == 0 && span.end == 0) {
        ++stats_.untimed;
        return;
    }
    span.start += clock_offset_;
    span.end += clock_offset_;
    const Lanes lanes = lanes_of(stream_id);
    span.lane = span.kind == SpanKind::h2d      ? lanes.h2d
                : span.kind == SpanKind::kernel ? lanes.kernel
                                                : lanes.d2h;
    if (auto known = batch_of_.find(correlation); known != batch_of_.end()) {
        span.batch = known->second.batch;
        batch_of_.erase(known);
        recorder_->span(span);
        ++stats_.spans;
        return;
    }
    waiting_[correlation] = Waiting{span, generation_};
}

void CuptiRecorder::on_external(uint32_t correlation, uint64_t external_id) {
    const auto batch = static_cast<int64_t>(external_id);
    if (auto waiting = waiting_.find(correlation); waiting != waiting_.end()) {
        waiting->second.span.batch = batch;
        recorder_->span(waiting->second.span);
        ++stats_.spans;
        waiting_.erase(waiting);
        return;
    }
    batch_of_[correlation] = Known{batch, generation_};
}

void CuptiRecorder::expire_old() {
    const bool all = finishing_;  // at the end nothing more will come
    std::erase_if(batch_of_, [&](const auto& entry) {
        return all || generation_ - entry.second.generation > kGiveUpGenerations;
    });
    std::erase_if(waiting_, [&](const auto& entry) {
        if (!all && generation_ - entry.second.generation <= kGiveUpGenerations) return false;
        recorder_->span(entry.second.span);  // recorded without its batch, and counted
        ++stats_.spans;
        ++stats_.uncorrelated;
        return true;
    });
}

//------------------------------------------------------------------------------------------------------------
// [SECTION] Reports
//------------------------------------------------------------------------------------------------------------

std::string CuptiRecorder::describe() const {
    const std::string version = cupti_.version();
    return fmt::format("GPU spans from CUPTI{}", version.empty() ? "" : " (" + version + ")");
}

ActivityStats CuptiRecorder::stats() const {
    std::lock_guard lock(g_route_mutex);
    return stats_;
}

}  // namespace pinscope::cuda
