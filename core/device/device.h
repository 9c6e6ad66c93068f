#pragma once
// The Device interface: what the pipeline needs from a GPU, and nothing more. Two implementations:
// SimDevice (core/device/sim, a modelled GPU running in real time) and CudaDevice (core/device/cuda,
// a real one, recorded by CUPTI). Rules of use:
// - Resources are RAII handles (HostBuffer, DeviceBuffer, Stream, Event) that return themselves to the
//   device that made them; the device must outlive every handle it gave out.
// - Operations on one Stream run in issue order; across streams, only Events order them.
// - A copy from pageable host memory holds the calling thread until the driver has staged it, even
//   with non_blocking (as CUDA does). A copy from pinned memory with non_blocking returns at once.
// - Every operation carries the batch id it belongs to, so GPU spans can be joined to host spans.
// - The device records its GPU spans itself, on the lanes of the stream's index (h2d/kernel/d2h).
// All methods may be called from any thread.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/trace/span.h"

namespace pinscope {

// A host page: buffers are rounded up to whole pages and aligned to them, as the OS maps them.
inline constexpr size_t kPageBytes = 4096;

class Device;

// The host's physical memory in bytes; 0 where the system does not say. What budgets of memory (pinned
// buffers, a capture opened whole) are shares of.
int64_t physical_memory_bytes();

// A failure a user can act on: out of (pinned) memory, no GPU, a driver error. Bugs are assertions.
class DeviceError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

struct DeviceInfo {
    std::string kind;  // "sim" or "cuda"
    std::string name;  // e.g. "NVIDIA H100 80GB HBM3" or "simulated GPU (NVIDIA H100 ...)"
    int copy_engines = 0;
    // The link's practical peak: the fastest pinned H2D copy the device measured (the CUDA device) or its
    // calibration holds (the simulated GPU). Shown everywhere as link_peak_label() says.
    double h2d_peak_gbps = 0;
    double d2h_peak_gbps = 0;
    int64_t memory_bytes = 0;
};

// What the four handles below share: a move-only owner of one device resource that gives it back to
// the device that made it when reset or destroyed. `Fields` describes the resource.
template <class Fields>
class DeviceHandle {
  public:
    DeviceHandle() = default;
    DeviceHandle(DeviceHandle&& other) noexcept { *this = std::move(other); }
    DeviceHandle& operator=(DeviceHandle&& other) noexcept {
        if (this != &other) {
            reset();
            owner_ = std::exchange(other.owner_, nullptr);
            fields_ = std::exchange(other.fields_, Fields{});
        }
        return *this;
    }
    DeviceHandle(const DeviceHandle&) = delete;
    DeviceHandle& operator=(const DeviceHandle&) = delete;
    ~DeviceHandle() { reset(); }

    explicit operator bool() const { return owner_ != nullptr; }
    void reset();  // gives the resource back now (defined after Device)

  protected:
    friend class Device;
    Device* owner_ = nullptr;
    Fields fields_;
};

struct HostBufferFields {
    std::byte* data = nullptr;
    size_t size = 0;
    HostMemory memory = HostMemory::none;
};

class HostBuffer : public DeviceHandle<HostBufferFields> {
  public:
    std::byte* data() const { return fields_.data; }
    size_t size() const { return fields_.size; }
    HostMemory memory() const { return fields_.memory; }
    bool pinned() const { return fields_.memory == HostMemory::pinned; }
};

struct DeviceBufferFields {
    void* data = nullptr;  // a device pointer (CUDA) or an opaque token (sim)
    size_t size = 0;
};

class DeviceBuffer : public DeviceHandle<DeviceBufferFields> {
  public:
    void* data() const { return fields_.data; }
    size_t size() const { return fields_.size; }
};

// A stream (and an event) is an opaque handle value owned by the device: a cudaStream_t, or a
// SimDevice slot number.
struct StreamFields {
    uintptr_t handle = 0;
    int index = 0;  // the lanes it draws on: "stream <index> H2D", ...
};

class Stream : public DeviceHandle<StreamFields> {
  public:
    uintptr_t handle() const { return fields_.handle; }
    int index() const { return fields_.index; }
};

struct EventFields {
    uintptr_t handle = 0;
};

class Event : public DeviceHandle<EventFields> {
  public:
    uintptr_t handle() const { return fields_.handle; }
};

// The work of one compute kernel: read `input_bytes` of the batch, write `output_bytes` of result,
// last `duration_us` on the device.
//
// Or, with `normalize`, the kernel that turns a uint8 batch into float32 on the GPU (transfer_dtype
// uint8): `input_bytes` pixels in, 4 x as many bytes of floats out (normalize.h's formula), lasting what
// the device takes for it (memory-bound), not `duration_us`. Pixel i of the input is element
// first_element + i of the batch, whose samples hold sample_elements each, in channel planes of
// channel_elements: what says each pixel's channel.
struct NormalizeWork {
    int64_t first_element = 0;
    int64_t sample_elements = 1;
    int64_t channel_elements = 1;
};

struct KernelWork {
    const DeviceBuffer* input = nullptr;
    size_t input_offset = 0;
    size_t input_bytes = 0;
    DeviceBuffer* output = nullptr;
    size_t output_offset = 0;
    size_t output_bytes = 0;
    double duration_us = 0;
    int64_t batch = kNoBatch;
    std::optional<NormalizeWork> normalize;
};

// Live resources of one device; a rebuilt pipeline must bring every count back to where it was.
struct DeviceResources {
    int64_t host_buffers = 0;
    int64_t pinned_bytes = 0;
    int64_t pageable_bytes = 0;
    int64_t device_buffers = 0;
    int64_t device_bytes = 0;
    int64_t streams = 0;
    int64_t events = 0;
};

class Device {
  public:
    virtual ~Device();
    Device(const Device&) = delete;
    Device& operator=(const Device&) = delete;

    virtual const DeviceInfo& info() const = 0;

    // Memory. Throws DeviceError (with a message a user can act on) when the memory cannot be had.
    HostBuffer allocate_host(size_t bytes, HostMemory memory);
    DeviceBuffer allocate_device(size_t bytes);
    Stream create_stream(int index);
    Event create_event();

    // Copies. `non_blocking` as in tensor.to(device, non_blocking=...): without it the call returns
    // only when the copy is complete.
    virtual void copy_to_device(const DeviceBuffer& dst, size_t dst_offset, const HostBuffer& src,
                                size_t src_offset, size_t bytes, Stream& stream, bool non_blocking,
                                int64_t batch) = 0;
    virtual void copy_to_host(HostBuffer& dst, size_t dst_offset, const DeviceBuffer& src, size_t src_offset,
                              size_t bytes, Stream& stream, bool non_blocking, int64_t batch) = 0;
    virtual void launch_kernel(const KernelWork& work, Stream& stream) = 0;

    // Order and completion.
    virtual void record(Event& event, Stream& stream) = 0;  // completes when the stream's work so far does
    virtual void wait(Stream& stream, const Event& event) = 0;  // later work on stream waits for event
    virtual bool ready(const Event& event) = 0;                 // has it completed?
    virtual void synchronize(const Event& event) = 0;           // host waits for it
    virtual void synchronize(Stream& stream) = 0;
    virtual void synchronize() = 0;  // every stream

    DeviceResources resources() const;

    // The run is over (its seconds are up, or it was stopped): whatever the device still has to do ends
    // now. On the simulated GPU, work still running ends at once and its span is marked cut (a 10 s
    // kernel in a 1 s run is drawn as the second it ran, cut); work not started is dropped, every wait
    // returns, and work issued later completes at once without running. A real GPU cannot cut a kernel
    // short: the CUDA device lets issued work finish.
    virtual void cut_work() {}

    // Page-locked memory is taken from the OS's locked pages: too much of it starves the machine.
    // allocate_host(pinned) past the budget throws DeviceError. 0 restores the default (half the RAM).
    void set_pinned_budget(int64_t bytes);
    int64_t pinned_budget() const { return pinned_budget_.load(); }
    static int64_t default_pinned_budget();

  protected:
    Device() = default;

    // Implementations provide the raw resources; the base class wraps them in handles and counts them.
    virtual std::byte* raw_allocate_host(size_t bytes, HostMemory memory) = 0;
    virtual void raw_free_host(std::byte* data, size_t bytes, HostMemory memory) = 0;
    virtual void* raw_allocate_device(size_t bytes) = 0;
    virtual void raw_free_device(void* data, size_t bytes) = 0;
    virtual uintptr_t raw_create_stream(int index) = 0;
    virtual void raw_destroy_stream(uintptr_t handle) = 0;
    virtual uintptr_t raw_create_event() = 0;
    virtual void raw_destroy_event(uintptr_t handle) = 0;

  private:
    template <class Fields>
    friend class DeviceHandle;
    // A handle of this device over a resource just made.
    template <class Handle, class Fields>
    Handle adopt(const Fields& fields) {
        Handle handle;
        handle.owner_ = this;
        handle.fields_ = fields;
        return handle;
    }
    void release(const HostBufferFields& buffer);
    void release(const DeviceBufferFields& buffer);
    void release(const StreamFields& stream);
    void release(const EventFields& event);

    std::atomic<int64_t> host_buffers_{0}, pinned_bytes_{0}, pageable_bytes_{0};
    std::atomic<int64_t> device_buffers_{0}, device_bytes_{0}, streams_{0}, events_{0};
    std::atomic<int64_t> pinned_budget_{default_pinned_budget()};
};

template <class Fields>
void DeviceHandle<Fields>::reset() {
    if (!owner_) return;
    std::exchange(owner_, nullptr)->release(std::exchange(fields_, Fields{}));
}

}  // namespace pinscope
