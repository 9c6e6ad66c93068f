#include "core/device/device.h"

#include <cassert>
#include <utility>

#include <fmt/format.h>
#include <unistd.h>

namespace pinscope {

HostBuffer& HostBuffer::operator=(HostBuffer&& other) noexcept {
    if (this != &other) {
        reset();
        owner_ = std::exchange(other.owner_, nullptr);
        data_ = std::exchange(other.data_, nullptr);
        size_ = std::exchange(other.size_, 0);
        memory_ = std::exchange(other.memory_, HostMemory::none);
    }
    return *this;
}

void HostBuffer::reset() {
    if (owner_) owner_->release(*this);
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
        reset();
        owner_ = std::exchange(other.owner_, nullptr);
        data_ = std::exchange(other.data_, nullptr);
        size_ = std::exchange(other.size_, 0);
    }
    return *this;
}

void DeviceBuffer::reset() {
    if (owner_) owner_->release(*this);
}

Stream& Stream::operator=(Stream&& other) noexcept {
    if (this != &other) {
        reset();
        owner_ = std::exchange(other.owner_, nullptr);
        handle_ = std::exchange(other.handle_, 0);
        index_ = std::exchange(other.index_, 0);
    }
    return *this;
}

void Stream::reset() {
    if (owner_) owner_->release(*this);
}

Event& Event::operator=(Event&& other) noexcept {
    if (this != &other) {
        reset();
        owner_ = std::exchange(other.owner_, nullptr);
        handle_ = std::exchange(other.handle_, 0);
    }
    return *this;
}

void Event::reset() {
    if (owner_) owner_->release(*this);
}

Device::~Device() {
    // Every handle must be gone before its device: a leak here is a bug in the pipeline.
    assert(host_buffers_ == 0 && device_buffers_ == 0 && streams_ == 0 && events_ == 0);
}

int64_t Device::default_pinned_budget() {
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page > 0 ? static_cast<int64_t>(pages) * page / 2 : (8LL << 30);
}

void Device::set_pinned_budget(int64_t bytes) {
    pinned_budget_ = bytes > 0 ? bytes : default_pinned_budget();
}

HostBuffer Device::allocate_host(size_t bytes, HostMemory memory) {
    assert(memory == HostMemory::pinned || memory == HostMemory::pageable);
    const auto size = static_cast<int64_t>(bytes);
    std::atomic<int64_t>& in_use = memory == HostMemory::pinned ? pinned_bytes_ : pageable_bytes_;
    // Reserve first, so two threads cannot both slip under the budget.
    const int64_t before = in_use.fetch_add(size);
    if (memory == HostMemory::pinned && before + size > pinned_budget_.load()) {
        in_use -= size;
        throw DeviceError(
            fmt::format("pinning {} MiB more would exceed the pinned-memory budget of {} MiB ({} MiB pinned "
                        "already); use fewer workers, a smaller prefetch_factor or batch, or raise pinned_budget_mb.",
                        bytes >> 20, pinned_budget_.load() >> 20, before >> 20));
    }
    HostBuffer buffer;
    try {
        buffer.data_ = raw_allocate_host(bytes, memory);
    } catch (...) {
        in_use -= size;
        throw;
    }
    buffer.owner_ = this;
    buffer.size_ = bytes;
    buffer.memory_ = memory;
    ++host_buffers_;
    return buffer;
}

DeviceBuffer Device::allocate_device(size_t bytes) {
    DeviceBuffer buffer;
    buffer.data_ = raw_allocate_device(bytes);
    buffer.owner_ = this;
    buffer.size_ = bytes;
    ++device_buffers_;
    device_bytes_ += static_cast<int64_t>(bytes);
    return buffer;
}

Stream Device::create_stream(int index) {
    Stream stream;
    stream.handle_ = raw_create_stream(index);
    stream.owner_ = this;
    stream.index_ = index;
    ++streams_;
    return stream;
}

Event Device::create_event() {
    Event event;
    event.handle_ = raw_create_event();
    event.owner_ = this;
    ++events_;
    return event;
}

void Device::release(HostBuffer& b) {
    raw_free_host(b.data_, b.size_, b.memory_);
    --host_buffers_;
    (b.memory_ == HostMemory::pinned ? pinned_bytes_ : pageable_bytes_) -= static_cast<int64_t>(b.size_);
    b.owner_ = nullptr;
    b.data_ = nullptr;
    b.size_ = 0;
    b.memory_ = HostMemory::none;
}

void Device::release(DeviceBuffer& b) {
    raw_free_device(b.data_, b.size_);
    --device_buffers_;
    device_bytes_ -= static_cast<int64_t>(b.size_);
    b.owner_ = nullptr;
    b.data_ = nullptr;
    b.size_ = 0;
}

void Device::release(Stream& s) {
    raw_destroy_stream(s.handle_);
    --streams_;
    s.owner_ = nullptr;
    s.handle_ = 0;
}

void Device::release(Event& e) {
    raw_destroy_event(e.handle_);
    --events_;
    e.owner_ = nullptr;
    e.handle_ = 0;
}

DeviceResources Device::resources() const {
    return {host_buffers_.load(), pinned_bytes_.load(), pageable_bytes_.load(), device_buffers_.load(),
            device_bytes_.load(), streams_.load(),      events_.load()};
}

}  // namespace pinscope
