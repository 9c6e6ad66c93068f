#include "core/model/written_ahead.h"

namespace pinscope {

WrittenAhead::WrittenAhead(size_t bytes, Write write)
    : buffers_(kBuffers, PageAlignedBytes(bytes)),
      writer_([this, write = std::move(write)] { write_ahead(write); }) {
    next();
}

WrittenAhead::~WrittenAhead() {
    stop_.store(true);
    writer_.join();
}

void WrittenAhead::write_ahead(const Write& write) {
    for (size_t n = 0;; ++n) {
        // Buffer n % kBuffers is free once the reader has handed back buffer n - kBuffers.
        while (n >= released_.load(std::memory_order_acquire) + kBuffers)
            if (!poll()) return;
        write(buffers_[n % kBuffers], n);
        written_.store(n + 1, std::memory_order_release);
    }
}

void WrittenAhead::next() {
    released_.store(taken_, std::memory_order_release);
    while (written_.load(std::memory_order_acquire) <= taken_) poll();
    ++taken_;
}

bool WrittenAhead::poll() const {
    std::this_thread::yield();
    return !stop_.load(std::memory_order_relaxed);
}

}  // namespace pinscope
