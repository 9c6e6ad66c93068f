#include "core/pipeline/host_buffer_pool.h"

#include <cassert>

namespace pinscope {

BufferLease& BufferLease::operator=(BufferLease&& other) noexcept {
    if (this != &other) {
        release();
        pool_ = std::move(other.pool_);
        buffer_ = std::move(other.buffer_);
    }
    return *this;
}

void BufferLease::release() {
    if (!pool_) return;
    std::shared_ptr<HostBufferPool> pool = std::move(pool_);  // may be the last owner: give back first
    pool->give_back(std::move(buffer_));
}

HostBufferPool::HostBufferPool(Device& device, HostMemory memory, size_t buffer_bytes, size_t capacity,
                               Gauge* pinned_gauge)
    : device_(device),
      memory_(memory),
      buffer_bytes_(buffer_bytes),
      capacity_(capacity),
      pinned_gauge_(pinned_gauge) {
    assert(capacity > 0);
}

HostBufferPool::~HostBufferPool() {
    assert(leased_ == 0);
}  // every lease holds its pool alive

BufferLease HostBufferPool::acquire() {
    std::unique_lock lock(mutex_);
    returned_.wait(lock, [&] { return closed_ || !free_.empty() || allocated_ < capacity_; });
    if (closed_) return {};
    HostBuffer buffer;
    if (!free_.empty()) {
        buffer = std::move(free_.back());
        free_.pop_back();
    } else {
        ++allocated_;  // reserve the slot, then allocate without holding the lock (pinning is slow)
        lock.unlock();
        try {
            buffer = device_.allocate_host(buffer_bytes_, memory_);
        } catch (...) {
            lock.lock();
            --allocated_;
            returned_.notify_one();
            throw;
        }
        lock.lock();
    }
    ++leased_;
    lock.unlock();
    if (pinned_gauge_ && memory_ == HostMemory::pinned)
        pinned_gauge_->add(static_cast<double>(buffer_bytes_));
    return BufferLease(shared_from_this(), std::move(buffer));
}

void HostBufferPool::give_back(HostBuffer buffer) {
    if (pinned_gauge_ && memory_ == HostMemory::pinned)
        pinned_gauge_->add(-static_cast<double>(buffer_bytes_));
    {
        std::lock_guard lock(mutex_);
        --leased_;
        free_.push_back(std::move(buffer));
    }
    returned_.notify_one();
}

void HostBufferPool::close() {
    {
        std::lock_guard lock(mutex_);
        closed_ = true;
    }
    returned_.notify_all();
}

size_t HostBufferPool::allocated() const {
    std::lock_guard lock(mutex_);
    return allocated_;
}

size_t HostBufferPool::leased() const {
    std::lock_guard lock(mutex_);
    return leased_;
}

}  // namespace pinscope
