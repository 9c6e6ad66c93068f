#include "core/device/cuda/cupti_subscription.h"

#include <cstdlib>
#include <limits>
#include <memory>
#include <mutex>
#include <unordered_map>

#include <fmt/format.h>

#include "core/device/cuda/cupti_recorder.h"
#include "core/trace/periodic_thread.h"

// Index of this file:
// [SECTION] The shared state
// [SECTION] CUPTI callbacks and registration
// [SECTION] Records: routing by device, meeting batch ids, giving up
// [SECTION] Joining and leaving

namespace pinscope::cuda::cupti_subscription {
namespace {

//------------------------------------------------------------------------------------------------------------
// [SECTION] The shared state
//------------------------------------------------------------------------------------------------------------

constexpr size_t kBufferBytes = 128 * 1024;        // small, so a partly filled buffer is returned soon
constexpr TimeNs kFlushInterval = 100 * kNsPerMs;  // a live view follows the run at this pace
constexpr TimeNs kGiveUpAfter = 2 * kNsPerS;       // a batch id that has not come by then will not

struct GpuRecord {
    Span span;
    uint32_t stream_id = 0;
    uint32_t device_id = 0;
    TimeNs arrived = 0;
};
// A device's recorder, and when it joined: CUPTI delivers records late, and those of work done before
// (the device calibrating while another device's recorder kept the kinds on) are not the recorder's.
struct Member {
    CuptiRecorder* recorder = nullptr;
    TimeNs since = 0;
};
struct BatchId {
    int64_t batch = kNoBatch;
    TimeNs arrived = 0;
};

// `lifecycle` serialises join and leave; it is never held by the callbacks, so join and leave may call
// CUPTI functions that call back (flush_all does). `mutex` guards what the callbacks reach, and makes
// every delivery to a recorder one at a time: each recorder's trace Recorder has a single producer.
struct State {
    std::mutex lifecycle;
    const CuptiLibrary* cupti = nullptr;  // set by the first join, kept (the library stays loaded)
    CUpti_SubscriberHandle subscriber = nullptr;
    std::unique_ptr<PeriodicThread> flusher;

    std::mutex mutex;
    std::unordered_map<uint32_t, Member> recorders;   // CUPTI device id -> its recorder
    std::unordered_map<uint32_t, BatchId> batch_of;   // correlation id -> our batch
    std::unordered_map<uint32_t, GpuRecord> waiting;  // correlation id -> span without its batch yet
    TimeNs clock_offset = 0;  // added to CUPTI's times when it could not take our clock
};

// Never destroyed: CUPTI's threads may call back while static destructors run at exit.
State& state() {
    static State* shared = new State;
    return *shared;
}

constexpr CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
                                         CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_MEMCPY,
                                         CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL};

void consume(State& s, uint8_t* buffer, size_t valid_bytes);

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
    State& s = state();
    {
        std::lock_guard lock(s.mutex);
        if (s.cupti && !s.recorders.empty()) {
            size_t dropped = 0;
            s.cupti->dropped_records(context, stream_id, &dropped);
            // CUPTI's buffers are the process's: a loss counts against every device recording now.
            if (dropped)
                for (auto& [device, member] : s.recorders) member.recorder->count_dropped(dropped);
            consume(s, buffer, valid);
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

// Subscribing first is how CUPTI clients keep out of each other's way; the answer names the other tool
// (Nsight Systems, a PyTorch profiler, ...) when one is attached.
bool subscribe(const CuptiLibrary& cupti, CUpti_SubscriberHandle* subscriber, std::string* why) {
    CUptiResult result;
    char other[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 1] = {};
    if (cupti.subscribe_v2) {
        CUpti_SubscriberParams params{};
        params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
        params.subscriberName = "pinscope";
        params.oldSubscriberName = other;
        params.oldSubscriberSize = sizeof(other) - 1;
        result = cupti.subscribe_v2(subscriber, ignore_callbacks, nullptr, &params);
    } else {
        result = cupti.subscribe(subscriber, ignore_callbacks, nullptr);
    }
    if (result == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
        *why = fmt::format("another profiler is using CUPTI ({})",
                           other[0] ? other : "it did not give its name");
        return false;
    }
    if (result != CUPTI_SUCCESS) {
        *why = "CUPTI cannot start: " + cupti.message(result);
        return false;
    }
    return true;
}

//------------------------------------------------------------------------------------------------------------
// [SECTION] Records: routing by device, meeting batch ids, giving up
//------------------------------------------------------------------------------------------------------------

CuptiRecorder* recorder_of(State& s, uint32_t device_id) {
    auto it = s.recorders.find(device_id);
    return it == s.recorders.end() ? nullptr : it->second.recorder;
}

void on_gpu_record(State& s, uint32_t correlation, Span span, uint32_t stream_id, uint32_t device_id) {
    auto member = s.recorders.find(device_id);
    if (member == s.recorders.end()) return;  // a device nobody records (see the header)
    CuptiRecorder* recorder = member->second.recorder;
    if (span.start == 0 && span.end == 0) {
        recorder->count_untimed();
        return;
    }
    span.start += s.clock_offset;
    span.end += s.clock_offset;
    if (span.start < member->second.since) return;  // before its recorder joined
    if (auto known = s.batch_of.find(correlation); known != s.batch_of.end()) {
        span.batch = known->second.batch;
        s.batch_of.erase(known);
        recorder->deliver(span, stream_id, /*uncorrelated=*/false);
        return;
    }
    s.waiting[correlation] = GpuRecord{span, stream_id, device_id, now_ns()};
}

void on_external(State& s, uint32_t correlation, uint64_t external_id) {
    const auto batch = static_cast<int64_t>(external_id);
    if (auto waiting = s.waiting.find(correlation); waiting != s.waiting.end()) {
        GpuRecord& record = waiting->second;
        record.span.batch = batch;
        if (CuptiRecorder* recorder = recorder_of(s, record.device_id))
            recorder->deliver(record.span, record.stream_id, /*uncorrelated=*/false);
        s.waiting.erase(waiting);
        return;
    }
    s.batch_of[correlation] = BatchId{batch, now_ns()};
}

void consume(State& s, uint8_t* buffer, size_t valid_bytes) {
    CUpti_Activity* record = nullptr;
    while (s.cupti->next_record(buffer, valid_bytes, &record) == CUPTI_SUCCESS) {
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
                on_gpu_record(s, m->correlationId, span, m->streamId, m->deviceId);
                break;
            }
            case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
            case CUPTI_ACTIVITY_KIND_KERNEL: {
                const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
                Span span;
                span.start = static_cast<TimeNs>(k->start);
                span.end = static_cast<TimeNs>(k->end);
                span.kind = SpanKind::kernel;
                on_gpu_record(s, k->correlationId, span, k->streamId, k->deviceId);
                break;
            }
            case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
                const auto* e = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(record);
                if (e->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0)
                    on_external(s, e->correlationId, e->externalId);
                break;
            }
            default:
                break;  // RUNTIME records only carry the correlation ids the others refer to
        }
    }
}

// Spans waiting since before `cutoff`, or of `leaving`'s device, are recorded without their batch (and
// counted); batch ids older than `cutoff` are forgotten.
void give_up(State& s, TimeNs cutoff, const CuptiRecorder* leaving = nullptr) {
    std::erase_if(s.batch_of, [&](const auto& entry) { return entry.second.arrived < cutoff; });
    std::erase_if(s.waiting, [&](const auto& entry) {
        const GpuRecord& record = entry.second;
        CuptiRecorder* recorder = recorder_of(s, record.device_id);
        if (record.arrived >= cutoff && (!leaving || recorder != leaving)) return false;
        if (recorder) recorder->deliver(record.span, record.stream_id, /*uncorrelated=*/true);
        return true;
    });
}

}  // namespace

void flush() {
    State& s = state();
    s.cupti->flush_all(0);  // completed records only: a forced flush would cut records still in flight
    std::lock_guard lock(s.mutex);
    give_up(s, now_ns() - kGiveUpAfter);
}

//------------------------------------------------------------------------------------------------------------
// [SECTION] Joining and leaving
//------------------------------------------------------------------------------------------------------------

bool join(const CuptiLibrary& cupti, CuptiRecorder* recorder, uint32_t device_id, std::string* why) {
    State& s = state();
    std::lock_guard lifecycle(s.lifecycle);
    {
        std::lock_guard lock(s.mutex);
        if (s.recorders.contains(device_id)) {
            *why = fmt::format("CUPTI is already recording GPU {} in this process", device_id);
            return false;
        }
        if (!s.recorders.empty()) {
            s.recorders[device_id] = Member{recorder, now_ns()};
            return true;
        }
    }
    // The first recorder: subscribe, register, take the clock, enable the kinds, start flushing.
    CUpti_SubscriberHandle subscriber = nullptr;
    if (!subscribe(cupti, &subscriber, why)) return false;
    bool have_clock = false;
    if (!register_once(cupti, &have_clock, why)) {
        cupti.unsubscribe(subscriber);
        return false;
    }
    TimeNs offset = 0;
    if (!have_clock) {
        // Older CUPTI: its own clock (CLOCK_REALTIME), moved onto ours by the offset seen now.
        uint64_t cupti_now = 0;
        cupti.get_timestamp(&cupti_now);
        offset = now_ns() - static_cast<TimeNs>(cupti_now);
    }
    {
        std::lock_guard lock(s.mutex);
        s.cupti = &cupti;
        s.clock_offset = offset;
        s.recorders[device_id] = Member{recorder, now_ns()};
    }
    s.subscriber = subscriber;
    for (CUpti_ActivityKind kind : kKinds) {
        const CUptiResult result = cupti.enable(kind);
        if (result != CUPTI_SUCCESS) {
            *why = fmt::format("CUPTI cannot record activity kind {}: {}", static_cast<int>(kind),
                               cupti.message(result));
            for (CUpti_ActivityKind enabled : kKinds) cupti.disable(enabled);
            cupti.unsubscribe(subscriber);
            s.subscriber = nullptr;
            std::lock_guard lock(s.mutex);
            s.recorders.clear();
            return false;
        }
    }
    s.flusher = std::make_unique<PeriodicThread>(kFlushInterval, [] { flush(); });
    return true;
}

void leave(CuptiRecorder* recorder) {
    State& s = state();
    std::lock_guard lifecycle(s.lifecycle);
    bool last = false;
    {
        std::lock_guard lock(s.mutex);
        last = s.recorders.size() == 1;
    }
    if (last) {
        s.flusher.reset();
        s.cupti->flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);  // nothing else is running: take it all
        for (CUpti_ActivityKind kind : kKinds) s.cupti->disable(kind);
    } else {
        // Another device is still running: a forced flush would cut its records in flight.
        s.cupti->flush_all(0);
    }
    {
        std::lock_guard lock(s.mutex);
        give_up(s, last ? std::numeric_limits<TimeNs>::max() : now_ns() - kGiveUpAfter, recorder);
        std::erase_if(s.recorders, [&](const auto& entry) { return entry.second.recorder == recorder; });
        if (last) s.batch_of.clear();
    }
    if (last) {
        s.cupti->unsubscribe(s.subscriber);
        s.subscriber = nullptr;
    }
}

}  // namespace pinscope::cuda::cupti_subscription
