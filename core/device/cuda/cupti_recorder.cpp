#include "core/device/cuda/cupti_recorder.h"

#include <fmt/format.h>

#include "core/device/cuda/cupti_subscription.h"

namespace pinscope::cuda {

std::unique_ptr<CuptiRecorder> CuptiRecorder::start(Trace& trace, int ordinal, std::string* why) {
    std::string reason;
    const CuptiLibrary* cupti = CuptiLibrary::get(&reason);
    if (!cupti) {
        *why = reason;
        return nullptr;
    }
    // The id CUPTI's records carry for this device: asked of the current context, which is the device's.
    uint32_t device_id = static_cast<uint32_t>(ordinal);
    if (cupti->device_id(nullptr, &device_id) != CUPTI_SUCCESS) device_id = static_cast<uint32_t>(ordinal);
    std::unique_ptr<CuptiRecorder> recorder(new CuptiRecorder(trace, *cupti, ordinal));
    if (!cupti_subscription::join(*cupti, recorder.get(), device_id, why)) return nullptr;
    recorder->joined_ = true;
    return recorder;
}

CuptiRecorder::CuptiRecorder(Trace& trace, const CuptiLibrary& cupti, int ordinal)
    : trace_(trace), cupti_(cupti), ordinal_(ordinal), recorder_(trace.make_recorder()) {
    default_lanes_ = lanes_of_index(0);
}

CuptiRecorder::~CuptiRecorder() {
    if (joined_) cupti_subscription::leave(this);
}

void CuptiRecorder::flush() {
    cupti_subscription::flush();
}

CuptiRecorder::Lanes CuptiRecorder::lanes_of_index(int index) const {
    LaneRegistry& lanes = trace_.lanes();
    return {lanes.device_lane(LaneRole::h2d, index, ordinal_),
            lanes.device_lane(LaneRole::kernel, index, ordinal_),
            lanes.device_lane(LaneRole::d2h, index, ordinal_)};
}

void CuptiRecorder::add_stream(cudaStream_t stream, int index) {
    uint32_t id = 0;
    if (cupti_.stream_id(nullptr, stream, 0, &id) != CUPTI_SUCCESS)
        return;  // its spans go to stream 0's lanes
    const Lanes lanes = lanes_of_index(index);
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

void CuptiRecorder::deliver(Span span, uint32_t stream_id, bool uncorrelated) {
    const Lanes lanes = lanes_of(stream_id);
    span.lane = span.kind == SpanKind::h2d      ? lanes.h2d
                : span.kind == SpanKind::kernel ? lanes.kernel
                                                : lanes.d2h;
    recorder_->span(span);
    std::lock_guard lock(stats_mutex_);
    ++stats_.spans;
    if (uncorrelated) ++stats_.uncorrelated;
}

void CuptiRecorder::count_untimed() {
    std::lock_guard lock(stats_mutex_);
    ++stats_.untimed;
}

void CuptiRecorder::count_dropped(size_t records) {
    std::lock_guard lock(stats_mutex_);
    stats_.dropped += records;
}

std::string CuptiRecorder::describe() const {
    const std::string version = cupti_.version();
    return fmt::format("GPU spans from CUPTI{}", version.empty() ? "" : " (" + version + ")");
}

ActivityStats CuptiRecorder::stats() const {
    std::lock_guard lock(stats_mutex_);
    return stats_;
}

}  // namespace pinscope::cuda
