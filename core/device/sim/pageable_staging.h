#pragma once
// How a pageable copy spends the calling thread's time. CUDA cannot DMA from pageable memory: the
// driver copies the data with the CPU through a small pinned bounce buffer, chunk by chunk, while the
// copy engine moves the chunks already staged. So a pageable copy's speed depends on the host too:
// with workers loading memory, the driver's memcpy slows down and so does the copy (seen on the H100
// host: 8.0 GB/s idle, 6.1 to 7.1 GB/s with 8 to 14 workers running).
//
// The simulated GPU does that memcpy for real, on the calling thread, and compares its time with the
// same memcpy on an idle host: the calibrated copy time includes the idle staging, and only what the
// staging runs late (host contention) is added.
#include <cstddef>

#include "core/trace/clock.h"

namespace pinscope {

enum class StagingDirection { to_device, to_host };

class PageableStaging {
  public:
    static constexpr size_t kChunkBytes = 2 << 20;  // the size of the driver's bounce buffers

    // The host's memcpy rate through a bounce buffer when nothing else runs, in bytes per ns; measured
    // once per process (a few milliseconds).
    static double idle_rate();

    // Copies `bytes` between `host` and a bounce buffer of this thread, a chunk at a time, and returns
    // how long it took in ns.
    static TimeNs stage(std::byte* host, size_t bytes, StagingDirection direction);
};

}  // namespace pinscope
