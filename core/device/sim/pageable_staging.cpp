#include "core/device/sim/pageable_staging.h"

#include <algorithm>
#include <cstring>
#include <memory>

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

}  // namespace

void PageableStaging::stage(std::byte* host, size_t bytes, StagingDirection direction) {
    for (size_t at = 0; at < bytes; at += kChunkBytes)
        copy_chunk(host + at, std::min(kChunkBytes, bytes - at), direction);
}

}  // namespace pinscope
