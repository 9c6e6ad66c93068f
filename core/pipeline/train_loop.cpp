#include "core/pipeline/train_loop.h"

#include <algorithm>

namespace pinscope {
namespace {

// Chunk c of n over `total` bytes: equal parts, the last one taking the remainder.
std::pair<size_t, size_t> chunk_range(size_t total, int n, int c) {
    const size_t part = total / static_cast<size_t>(n);
    const size_t offset = part * static_cast<size_t>(c);
    return {offset, c == n - 1 ? total - offset : part};
}

}  // namespace

TrainLoop::TrainLoop(const PipelineConfig& config, Device& device, Recorder& recorder, LaneId lane)
    : config_(config), device_(device), recorder_(recorder), lane_(lane) {
    for (int s = 0; s < config.streams; ++s) streams_.push_back(device.create_stream(s));
    slots_.resize(static_cast<size_t>(batches_in_flight(config)));
    const HostMemory result_memory = config.pin_memory ? HostMemory::pinned : HostMemory::pageable;
    for (Slot& slot : slots_) {
        slot.input = device.allocate_device(static_cast<size_t>(config.batch_bytes()));
        if (config.normalizes_on_gpu())
            slot.normalized =
                device.allocate_device(static_cast<size_t>(config.batch_bytes()) * sizeof(float));
        if (config.d2h_bytes > 0) {
            slot.output = device.allocate_device(static_cast<size_t>(config.d2h_bytes));
            slot.result = device.allocate_host(static_cast<size_t>(config.d2h_bytes), result_memory);
        }
        for (int s = 0; s < config.streams; ++s) slot.done.push_back(device.create_event());
        slot.used.assign(static_cast<size_t>(config.streams), false);
    }
}

TrainLoop::~TrainLoop() {
    drain();
}

void TrainLoop::drain() {
    // Oldest first, so the waits follow the order the GPU finishes in.
    for (int64_t k = 0; k < static_cast<int64_t>(slots_.size()); ++k)
        retire(slots_[static_cast<size_t>((submitted_ + k) % static_cast<int64_t>(slots_.size()))]);
}

void TrainLoop::retire(Slot& slot) {
    if (!slot.batch) return;
    bool busy = false;
    for (size_t s = 0; s < slot.done.size(); ++s)
        busy = busy || (slot.used[s] && !device_.ready(slot.done[s]));
    if (busy) {
        ScopedSpan waiting(&recorder_, lane_, SpanKind::sync, slot.batch->id);
        for (size_t s = 0; s < slot.done.size(); ++s)
            if (slot.used[s]) device_.synchronize(slot.done[s]);
    }
    slot.batch.reset();  // the host buffer goes back to its pool
    std::fill(slot.used.begin(), slot.used.end(), false);
    ++completed_;
}

void TrainLoop::copy_in(Slot& slot, const LoadedBatch& batch, size_t offset, size_t bytes, Stream& stream) {
    if (config_.data_on_gpu) return;  // the batch is already in slot.input
    const HostBuffer& src = batch.buffer.buffer();
    const bool blocks = !config_.non_blocking || !src.pinned();
    // A blocking call shows on the host lane: staging (pageable) or waiting for the copy (pinned).
    std::optional<ScopedSpan> held;
    if (blocks)
        held.emplace(&recorder_, lane_, src.pinned() ? SpanKind::sync : SpanKind::stage, batch.id, bytes,
                     src.memory());
    device_.copy_to_device(slot.input, offset, src, offset, bytes, stream, config_.non_blocking, batch.id);
}

// uint8 pixels in, float32 out, on the GPU (transfer_dtype uint8): the chunk's pixels, wherever the chunk
// starts in its samples.
void TrainLoop::normalize(Slot& slot, const LoadedBatch& batch, size_t in_offset, size_t in_bytes,
                          Stream& stream) {
    const std::vector<int64_t>& dims = config_.sample_shape.dims;
    KernelWork work;
    work.input = &slot.input;
    work.input_offset = in_offset;
    work.input_bytes = in_bytes;
    work.output = &slot.normalized;
    work.output_offset = in_offset * sizeof(float);
    work.output_bytes = in_bytes * sizeof(float);
    work.batch = batch.id;
    NormalizeWork& pixels = work.normalize.emplace();
    pixels.first_element = static_cast<int64_t>(in_offset);
    pixels.sample_elements = config_.sample_shape.elements();
    pixels.channel_elements = dims.size() == 3 ? pixels.sample_elements / dims[0] : pixels.sample_elements;
    device_.launch_kernel(work, stream);
}

void TrainLoop::compute(Slot& slot, const LoadedBatch& batch, size_t in_offset, size_t in_bytes,
                        size_t out_offset, size_t out_bytes, Stream& stream) {
    KernelWork work;
    work.input = &slot.input;
    if (config_.normalizes_on_gpu()) {  // the model reads the floats the normalize kernel made
        normalize(slot, batch, in_offset, in_bytes, stream);
        work.input = &slot.normalized;
        in_offset *= sizeof(float);
        in_bytes *= sizeof(float);
    }
    work.input_offset = in_offset;
    work.input_bytes = in_bytes;
    work.output = slot.output ? &slot.output : nullptr;
    work.output_offset = out_offset;
    work.output_bytes = out_bytes;
    work.duration_us = config_.batch_kernel_us() / config_.chunks;
    work.batch = batch.id;
    device_.launch_kernel(work, stream);
}

void TrainLoop::copy_out(Slot& slot, const LoadedBatch& batch, size_t offset, size_t bytes, Stream& stream) {
    if (bytes == 0) return;
    const bool blocks = !config_.non_blocking || !slot.result.pinned();
    std::optional<ScopedSpan> held;
    if (blocks)
        held.emplace(&recorder_, lane_, slot.result.pinned() ? SpanKind::sync : SpanKind::stage, batch.id,
                     bytes, slot.result.memory());
    device_.copy_to_host(slot.result, offset, slot.output, offset, bytes, stream, config_.non_blocking,
                         batch.id);
}

void TrainLoop::submit(LoadedBatch batch) {
    Slot& slot = slots_[static_cast<size_t>(submitted_ % static_cast<int64_t>(slots_.size()))];
    retire(slot);  // the batch that used this slot streams + 1 batches ago

    const int n = config_.chunks;
    const size_t out_total = slot.output ? static_cast<size_t>(config_.d2h_bytes) : 0;
    auto stream_of = [&](int c) -> size_t {
        return static_cast<size_t>((submitted_ * n + c) % config_.streams);
    };
    auto in_chunk = [&](int c) { return chunk_range(batch.bytes, n, c); };
    auto out_chunk = [&](int c) { return chunk_range(out_total, n, c); };
    auto issue_compute = [&](int c) {
        auto [in_off, in_len] = in_chunk(c);
        auto [out_off, out_len] = out_chunk(c);
        compute(slot, batch, in_off, in_len, out_off, out_len, streams_[stream_of(c)]);
    };

    if (config_.issue_order == IssueOrder::per_chunk) {
        for (int c = 0; c < n; ++c) {
            copy_in(slot, batch, in_chunk(c).first, in_chunk(c).second, streams_[stream_of(c)]);
            issue_compute(c);
            copy_out(slot, batch, out_chunk(c).first, out_chunk(c).second, streams_[stream_of(c)]);
        }
    } else {
        for (int c = 0; c < n; ++c)
            copy_in(slot, batch, in_chunk(c).first, in_chunk(c).second, streams_[stream_of(c)]);
        for (int c = 0; c < n; ++c) issue_compute(c);
        for (int c = 0; c < n; ++c)
            copy_out(slot, batch, out_chunk(c).first, out_chunk(c).second, streams_[stream_of(c)]);
    }
    for (int c = 0; c < n; ++c) slot.used[stream_of(c)] = true;
    for (size_t s = 0; s < streams_.size(); ++s)
        if (slot.used[s]) device_.record(slot.done[s], streams_[s]);
    slot.batch = std::move(batch);
    ++submitted_;
}

}  // namespace pinscope
