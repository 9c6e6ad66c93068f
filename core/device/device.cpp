#include "core/device/device.h"

#include <cassert>
#include <utility>

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

HostBuffer Device::allocate_host(size_t bytes, HostMemory memory) {
    assert(memory == HostMemory::pinned || memory == HostMemory::pageable);
    HostBuffer buffer;
    buffer.data_ = raw_allocate_host(bytes, memory);
    buffer.owner_ = this;
    buffer.size_ = bytes;
    buffer.memory_ = memory;
    ++host_buffers_;
    (memory == HostMemory::pinned ? pinned_bytes_ : pageable_bytes_) += static_cast<int64_t>(bytes);
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
    return {host_buffers_.load(), pinned_bytes_.load(),   pageable_bytes_.load(), device_buffers_.load(),
            device_bytes_.load(), streams_.load(), events_.load()};
}

}  // namespace pinscope
