#pragma once
// A bounded pool of equal-sized host buffers, pinned or pageable, allocated on first need and reused
// (as PyTorch's caching host allocator reuses pinned blocks). acquire() blocks while all are leased,
// which is what bounds the pipeline's memory; close() wakes every waiter for shutdown.
// A lease keeps its pool alive, so a batch may outlive the loader that built it; the device (and the
// gauge) must outlive both.
#include <condition_variable>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "core/device/device.h"
#include "core/trace/trace.h"

namespace pinscope {

class HostBufferPool;

// A buffer on loan; destroying the lease returns the buffer to its pool.
class BufferLease {
  public:
    BufferLease() = default;
    BufferLease(BufferLease&& other) noexcept
        : pool_(std::move(other.pool_)), buffer_(std::move(other.buffer_)) {}
    BufferLease& operator=(BufferLease&& other) noexcept;
    BufferLease(const BufferLease&) = delete;
    BufferLease& operator=(const BufferLease&) = delete;
    ~BufferLease() { release(); }

    const HostBuffer& buffer() const { return buffer_; }
    HostBuffer& buffer() { return buffer_; }
    std::byte* data() const { return buffer_.data(); }
    HostMemory memory() const { return buffer_.memory(); }
    explicit operator bool() const { return pool_ != nullptr; }
    void release();

  private:
    friend class HostBufferPool;
    BufferLease(std::shared_ptr<HostBufferPool> pool, HostBuffer buffer)
        : pool_(std::move(pool)), buffer_(std::move(buffer)) {}
    std::shared_ptr<HostBufferPool> pool_;
    HostBuffer buffer_;
};

class HostBufferPool : public std::enable_shared_from_this<HostBufferPool> {
  public:
    // `pinned_gauge` (optional) follows the pinned bytes on loan, for the "pinned bytes in use" counter.
    static std::shared_ptr<HostBufferPool> create(Device& device, HostMemory memory, size_t buffer_bytes,
                                                  size_t capacity, Gauge* pinned_gauge = nullptr) {
        return std::shared_ptr<HostBufferPool>(
            new HostBufferPool(device, memory, buffer_bytes, capacity, pinned_gauge));
    }
    ~HostBufferPool();
    HostBufferPool(const HostBufferPool&) = delete;
    HostBufferPool& operator=(const HostBufferPool&) = delete;

    // Blocks while every buffer is on loan; returns an empty lease once the pool is closed.
    BufferLease acquire();
    void close();

    HostMemory memory() const { return memory_; }
    size_t buffer_bytes() const { return buffer_bytes_; }
    size_t capacity() const { return capacity_; }
    size_t allocated() const;
    size_t leased() const;

  private:
    friend class BufferLease;
    HostBufferPool(Device& device, HostMemory memory, size_t buffer_bytes, size_t capacity,
                   Gauge* pinned_gauge);
    void give_back(HostBuffer buffer);

    Device& device_;
    const HostMemory memory_;
    const size_t buffer_bytes_;
    const size_t capacity_;
    Gauge* pinned_gauge_;

    mutable std::mutex mutex_;
    std::condition_variable returned_;
    std::vector<HostBuffer> free_;
    size_t allocated_ = 0;
    size_t leased_ = 0;
    bool closed_ = false;
};

}  // namespace pinscope
