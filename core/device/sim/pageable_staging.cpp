#include "core/device/sim/pageable_staging.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "core/trace/clock.h"

namespace pinscope {
namespace {

std::byte* bounce_buffer() {
    thread_local std::unique_ptr<std::byte[]> buffer;
    if (!buffer) {
        buffer = std::make_unique<std::byte[]>(PageableStaging::kChunkBytes);
        std::memset(buffer.get(), 0, PageableStaging::kChunkBytes);  // resident, as a pinned buffer is
    }
    return buffer.get();
}

void copy_chunk(std::byte* host, size_t bytes, StagingDirection direction) {
    std::byte* bounce = bounce_buffer();
    if (direction == StagingDirection::to_device)
        std::memcpy(bounce, host, bytes);
    else
        std::memcpy(host, bounce, bytes);
}

double measure_idle_rate() {
    constexpr size_t kBytes = 32 << 20;  // larger than the caches, like a batch
    std::vector<std::byte> source(kBytes, std::byte{1});
    double best = 0;
    for (int round = 0; round < 3; ++round) {
        const TimeNs start = now_ns();
        for (size_t at = 0; at < kBytes; at += PageableStaging::kChunkBytes)
            copy_chunk(source.data() + at, PageableStaging::kChunkBytes, StagingDirection::to_device);
        best = std::max(
            best, static_cast<double>(kBytes) / static_cast<double>(std::max<TimeNs>(1, now_ns() - start)));
    }
    return best;
}

}  // namespace

double PageableStaging::idle_rate() {
    static const double rate = measure_idle_rate();
    return rate;
}

TimeNs PageableStaging::stage(std::byte* host, size_t bytes, StagingDirection direction) {
    bounce_buffer();  // this thread's first copy allocates it: not part of the copy
    const TimeNs start = now_ns();
    for (size_t at = 0; at < bytes; at += kChunkBytes)
        copy_chunk(host + at, std::min(kChunkBytes, bytes - at), direction);
    return now_ns() - start;
}

}  // namespace pinscope
