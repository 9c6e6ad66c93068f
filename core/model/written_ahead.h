#pragma once
// Buffers one long-lived thread writes ahead of their reader, as workers keep a busy pin thread fed: the
// writer fills the next buffer while the reader uses the last, and each is handed over by a counter both
// threads poll, so neither sleeps between buffers. The host rates time the pin thread's copy this way
// (host_rates.cpp, memcpy_gbps): a copier that slept while another thread wrote its source, and woke to
// copy, ran 7.3 to 11 GB/s at 3 to 4 MiB on the GPU machine's host where one that polled ran 9.4 to 12.6
// and the pipeline's busy pin thread 11.9 to 12.6; on this project's VM the two ways agreed.
#include <atomic>
#include <cstddef>
#include <functional>
#include <span>
#include <thread>
#include <vector>

#include "core/device/page_aligned.h"

namespace pinscope {

class WrittenAhead {
  public:
    // write(buffer, n) fills `buffer` as the n-th one handed over (n from 0), on the writer's thread.
    using Write = std::function<void(std::span<std::byte> buffer, size_t n)>;
    static constexpr size_t kBuffers = 3;  // one read, one being written, one spare

    // Starts the writer and waits for the first buffer.
    WrittenAhead(size_t bytes, Write write);
    ~WrittenAhead();
    WrittenAhead(const WrittenAhead&) = delete;
    WrittenAhead& operator=(const WrittenAhead&) = delete;

    // Hands the current buffer back to the writer and waits for the next one it has written.
    void next();
    // The buffer handed over last: the writer leaves it alone until next().
    std::span<const std::byte> current() const { return buffers_[(taken_ - 1) % kBuffers]; }

  private:
    void write_ahead(const Write& write);
    // A yield, not a sleep: the core stays awake, and on two cores the other thread still gets one.
    bool poll() const;

    std::vector<PageAlignedBytes> buffers_;
    std::atomic<size_t> written_{0}, released_{0};
    std::atomic<bool> stop_{false};
    size_t taken_ = 0;  // the reader's own count of buffers handed over
    std::thread writer_;
};

}  // namespace pinscope
