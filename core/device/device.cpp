#include "core/device/device.h"

#include <cassert>
#include <utility>

#include <fmt/format.h>
#include <unistd.h>

#include "core/units/units.h"

namespace pinscope {

Device::~Device() {
    // Every handle must be gone before its device: a leak here is a bug in the pipeline.
    assert(host_buffers_ == 0 && device_buffers_ == 0 && streams_ == 0 && events_ == 0);
}

int64_t physical_memory_bytes() {
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page > 0 ? static_cast<int64_t>(pages) * page : 0;
}

int64_t Device::default_pinned_budget() {
    const int64_t memory = physical_memory_bytes();
    return memory > 0 ? memory / 2 : (8LL << 30);
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
        throw DeviceError(fmt::format(
            "pinning {} more would exceed the pinned-memory budget of {} ({} pinned "
            "already); use fewer workers, a smaller prefetch_factor or batch, or raise pinned_budget_mb.",
            format_bytes(static_cast<double>(bytes)),
            format_bytes(static_cast<double>(pinned_budget_.load())),
            format_bytes(static_cast<double>(before))));
    }
    std::byte* data = nullptr;
    try {
        data = raw_allocate_host(bytes, memory);
    } catch (...) {
        in_use -= size;
        throw;
    }
    ++host_buffers_;
    return adopt<HostBuffer>(HostBufferFields{data, bytes, memory});
}

DeviceBuffer Device::allocate_device(size_t bytes) {
    DeviceBuffer buffer = adopt<DeviceBuffer>(DeviceBufferFields{raw_allocate_device(bytes), bytes});
    ++device_buffers_;
    device_bytes_ += static_cast<int64_t>(bytes);
    return buffer;
}

Stream Device::create_stream(int index) {
    Stream stream = adopt<Stream>(StreamFields{raw_create_stream(index), index});
    ++streams_;
    return stream;
}

Event Device::create_event() {
    Event event = adopt<Event>(EventFields{raw_create_event()});
    ++events_;
    return event;
}

void Device::release(const HostBufferFields& b) {
    raw_free_host(b.data, b.size, b.memory);
    --host_buffers_;
    (b.memory == HostMemory::pinned ? pinned_bytes_ : pageable_bytes_) -= static_cast<int64_t>(b.size);
}

void Device::release(const DeviceBufferFields& b) {
    raw_free_device(b.data, b.size);
    --device_buffers_;
    device_bytes_ -= static_cast<int64_t>(b.size);
}

void Device::release(const StreamFields& s) {
    raw_destroy_stream(s.handle);
    --streams_;
}

void Device::release(const EventFields& e) {
    raw_destroy_event(e.handle);
    --events_;
}

DeviceResources Device::resources() const {
    return {host_buffers_.load(), pinned_bytes_.load(), pageable_bytes_.load(), device_buffers_.load(),
            device_bytes_.load(), streams_.load(),      events_.load()};
}

}  // namespace pinscope
