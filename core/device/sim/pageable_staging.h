#pragma once
// How a pageable copy spends the calling thread's time. CUDA cannot DMA from pageable memory: the
// driver copies the data with the CPU through a small pinned bounce buffer, chunk by chunk, while the
// copy engine moves the chunks already staged. So a pageable copy's speed depends on the host too:
// with workers loading memory, the driver's memcpy slows down and so does the copy (seen on the H100
// host: 8.0 GB/s idle, 6.1 to 7.1 GB/s with 8 to 14 workers running).
//
// The simulated GPU does that memcpy for real, on the calling thread: it costs the caller CPU, as the
// driver's does, and the copy completes no earlier than the staging.
#include <cstddef>

namespace pinscope {

enum class StagingDirection { to_device, to_host };

class PageableStaging {
  public:
    static constexpr size_t kChunkBytes = 2 << 20;  // the size of the driver's bounce buffers

    // Copies `bytes` between `host` and a bounce buffer of this thread, a chunk at a time.
    static void stage(std::byte* host, size_t bytes, StagingDirection direction);
    // This thread's bounce buffer, kChunkBytes long: page-aligned and resident, as the driver's pinned
    // ones are (page_aligned.h says why the alignment matters).
    static std::byte* bounce_buffer();
};

}  // namespace pinscope
