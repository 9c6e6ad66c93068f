#include "core/device/sim/pageable_staging.h"

#include <algorithm>
#include <cstring>

#include "core/device/page_aligned.h"

namespace pinscope {
namespace {

void copy_chunk(std::byte* host, size_t bytes, StagingDirection direction) {
    std::byte* bounce = PageableStaging::bounce_buffer();
    if (direction == StagingDirection::to_device)
        std::memcpy(bounce, host, bytes);
    else
        std::memcpy(host, bounce, bytes);
}

}  // namespace

std::byte* PageableStaging::bounce_buffer() {
    thread_local PageAlignedBytes buffer(kChunkBytes);  // zeroed on creation: resident
    return buffer.data();
}

void PageableStaging::stage(std::byte* host, size_t bytes, StagingDirection direction) {
    for (size_t at = 0; at < bytes; at += kChunkBytes)
        copy_chunk(host + at, std::min(kChunkBytes, bytes - at), direction);
}

}  // namespace pinscope
