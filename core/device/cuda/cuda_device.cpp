// CudaDevice: the Device interface on the CUDA runtime. Copies are cudaMemcpyAsync on non-blocking
// streams (so pageable copies hold the caller while the driver stages them, as the interface says),
// pinned host memory comes from cudaHostAlloc, and every copy and launch is bracketed by the GPU
// activity recorder so its span lands on the stream's lanes with its batch id.
#include "core/device/cuda/cuda_device.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "core/device/cuda/compute_kernel.h"
#include "core/device/cuda/cuda_check.h"
#include "core/device/cuda/cupti_recorder.h"
#include "core/device/cuda/event_timer.h"
#include "core/device/cuda/normalize_kernel.h"
#include "core/device/cuda/pinned_memory.h"
#include "core/device/startup_spans.h"
#include "core/units/units.h"

// Index of this file:
// [SECTION] Helpers
// [SECTION] The device: construction, pinning method, link peaks
// [SECTION] Memory: buffers, streams and events
// [SECTION] Work: copies, kernels, events, synchronisation
// [SECTION] The factory's entry points

namespace pinscope {
namespace {

using cuda::check;
using cuda::check_quietly;

//------------------------------------------------------------------------------------------------------------
// [SECTION] Helpers
//------------------------------------------------------------------------------------------------------------

cudaStream_t native(const Stream& stream) {
    return reinterpret_cast<cudaStream_t>(stream.handle());
}
cudaEvent_t native(const Event& event) {
    return reinterpret_cast<cudaEvent_t>(event.handle());
}

struct DeviceFree {
    void operator()(void* data) const { check_quietly(cudaFree(data), "cudaFree"); }
};

//------------------------------------------------------------------------------------------------------------
// [SECTION] The device: construction, pinning method, link peaks
//------------------------------------------------------------------------------------------------------------

class CudaDevice final : public Device {
  public:
    CudaDevice(Trace& trace, const CudaDeviceOptions& options, std::string* tracing);
    ~CudaDevice() override;

    const DeviceInfo& info() const override { return info_; }
    GpuTraceReport trace_report() const;

    void copy_to_device(const DeviceBuffer& dst, size_t dst_offset, const HostBuffer& src, size_t src_offset,
                        size_t bytes, Stream& stream, bool non_blocking, int64_t batch) override;
    void copy_to_host(HostBuffer& dst, size_t dst_offset, const DeviceBuffer& src, size_t src_offset,
                      size_t bytes, Stream& stream, bool non_blocking, int64_t batch) override;
    void launch_kernel(const KernelWork& work, Stream& stream) override;

    void record(Event& event, Stream& stream) override;
    void wait(Stream& stream, const Event& event) override;
    bool ready(const Event& event) override;
    void synchronize(const Event& event) override;
    void synchronize(Stream& stream) override;
    void synchronize() override;

  protected:
    std::byte* raw_allocate_host(size_t bytes, HostMemory memory) override;
    void raw_free_host(std::byte* data, size_t bytes, HostMemory memory) override;
    void* raw_allocate_device(size_t bytes) override;
    void raw_free_device(void* data, size_t bytes) override;
    uintptr_t raw_create_stream(int index) override;
    void raw_destroy_stream(uintptr_t handle) override;
    uintptr_t raw_create_event() override;
    void raw_destroy_event(uintptr_t handle) override;

  private:
    // Runs `call` (a CUDA call issuing `op` on `stream`) between the recorder's before() and after().
    template <class Call>
    void issue(const cuda::GpuOp& op, cudaStream_t stream, const char* name, Call&& call) {
        activity_->before(op, stream);
        const cudaError_t status = call();
        activity_->after(op, stream);
        check(status, name);
    }
    void make_current() const;  // the CUDA runtime's current device is per host thread
    void launch_normalize(const KernelWork& work, cudaStream_t stream);  // work.normalize is set
    void measure_link_peaks();
    void choose_pin_method();

    const int ordinal_;
    DeviceInfo info_;
    cuda::KernelTiming kernel_;
    std::unique_ptr<uint32_t, DeviceFree> checksum_;  // the word every kernel adds its sum into
    std::atomic<int> live_streams_{0};
    std::unique_ptr<cuda::GpuActivity> activity_;
    cuda::PinMethod pin_method_ = cuda::PinMethod::host_alloc;
    std::mutex pinned_mutex_;
    std::unordered_map<void*, cuda::PinMethod> pinned_;  // how each pinned buffer was made
    StartupSpans startup_spans_;  // the context and each pinned allocation, as timed here
};

CudaDevice::CudaDevice(Trace& trace, const CudaDeviceOptions& options, std::string* tracing)
    : ordinal_(options.ordinal), startup_spans_(trace) {
    // The context: made here by the process's first device on this GPU (the driver's start with it), or
    // found already made by an earlier one, which the span's length shows.
    const TimeNs context_start = now_ns();
    make_current();
    check(cudaFree(nullptr), "cudaFree");
    startup_spans_.record("CUDA context: this device's first CUDA call", context_start, now_ns());
    cudaDeviceProp props{};
    check(cudaGetDeviceProperties(&props, ordinal_), "cudaGetDeviceProperties");
    info_.kind = "cuda";
    info_.name = props.name;
    info_.copy_engines = props.asyncEngineCount;
    info_.memory_bytes = static_cast<int64_t>(props.totalGlobalMem);
    uint32_t* checksum = nullptr;
    check(cudaMalloc(reinterpret_cast<void**>(&checksum), sizeof(uint32_t)), "cudaMalloc");
    checksum_.reset(checksum);
    cudaStream_t stream = nullptr;
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    try {
        kernel_ = cuda::calibrate_batch_kernel(stream, props.multiProcessorCount, checksum_.get());
    } catch (const std::exception& e) {
        cudaStreamDestroy(stream);
        throw DeviceError(e.what());
    }
    cudaStreamDestroy(stream);
    measure_link_peaks();
    choose_pin_method();

    // Calibration and the link measurement above stay out of the trace: the recorder starts now.
    std::string why_not = "cupti=false";
    if (options.cupti) activity_ = cuda::CuptiRecorder::start(trace, ordinal_, &why_not);
    if (!activity_) activity_ = std::make_unique<cuda::EventTimer>(trace, ordinal_, why_not);
    if (tracing) *tracing = activity_->describe();
}

CudaDevice::~CudaDevice() {
    // The destroying thread may have another device current (two sessions on two GPUs).
    try {
        make_current();
    } catch (const DeviceError&) {
        // The synchronisation below reports the failing GPU.
    }
    check_quietly(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    activity_->flush();
    const cuda::ActivityStats stats = activity_->stats();
    activity_.reset();
    if (stats.dropped || stats.untimed || stats.uncorrelated)
        fmt::print(stderr,
                   "pinscope: GPU trace incomplete: {} records dropped by CUPTI, {} without times, {} spans "
                   "without a batch id\n",
                   stats.dropped, stats.untimed, stats.uncorrelated);
}

// Asked of the runtime each time (a read of its thread state), never remembered here: other code on
// the thread (the copy probe, another device) may have changed it since.
void CudaDevice::make_current() const {
    int current = -1;
    if (cudaGetDevice(&current) == cudaSuccess && current == ordinal_) return;
    check(cudaSetDevice(ordinal_), "cudaSetDevice");
}

// Huge pages and cudaHostRegister when this machine allows it (they pin far faster), else cudaHostAlloc.
void CudaDevice::choose_pin_method() {
    try {
        void* trial = cuda::pin_allocate(4u << 20, cuda::PinMethod::huge_pages);
        cuda::pin_free(trial, 4u << 20, cuda::PinMethod::huge_pages);
        pin_method_ = cuda::PinMethod::huge_pages;
    } catch (const DeviceError&) {
        pin_method_ = cuda::PinMethod::host_alloc;
    }
}

// The best of a few 32 MiB pinned copies each way: what "link peak" means in the run report.
void CudaDevice::measure_link_peaks() {
    constexpr size_t kBytes = 32u << 20;
    void* host = nullptr;
    void* device = nullptr;
    cudaStream_t stream = nullptr;
    cudaEvent_t begin = nullptr, end = nullptr;
    auto release = [&] {
        if (host) cudaFreeHost(host);
        if (device) cudaFree(device);
        if (stream) cudaStreamDestroy(stream);
        if (begin) cudaEventDestroy(begin);
        if (end) cudaEventDestroy(end);
    };
    try {
        check(cudaHostAlloc(&host, kBytes, cudaHostAllocDefault), "cudaHostAlloc");
        check(cudaMalloc(&device, kBytes), "cudaMalloc");
        check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
        check(cudaEventCreate(&begin), "cudaEventCreate");
        check(cudaEventCreate(&end), "cudaEventCreate");
        std::memset(host, 1, kBytes);
        for (int direction = 0; direction < 2; ++direction) {
            double best = 0;
            for (int r = 0; r < 4; ++r) {
                check(cudaEventRecord(begin, stream), "cudaEventRecord");
                if (direction == 0)
                    check(cudaMemcpyAsync(device, host, kBytes, cudaMemcpyHostToDevice, stream),
                          "cudaMemcpyAsync");
                else
                    check(cudaMemcpyAsync(host, device, kBytes, cudaMemcpyDeviceToHost, stream),
                          "cudaMemcpyAsync");
                check(cudaEventRecord(end, stream), "cudaEventRecord");
                check(cudaEventSynchronize(end), "cudaEventSynchronize");
                float ms = 0;
                check(cudaEventElapsedTime(&ms, begin, end), "cudaEventElapsedTime");
                if (r > 0 && ms > 0) best = std::max(best, kBytes / (ms * 1e-3) * 1e-9);  // r = 0 warms up
            }
            (direction == 0 ? info_.h2d_peak_gbps : info_.d2h_peak_gbps) = best;
        }
    } catch (...) {
        release();
        throw;
    }
    release();
}

GpuTraceReport CudaDevice::trace_report() const {
    const cuda::ActivityStats stats = activity_->stats();
    GpuTraceReport report;
    report.method = activity_->describe();
    report.cupti = dynamic_cast<const cuda::CuptiRecorder*>(activity_.get()) != nullptr;
    report.spans = stats.spans;
    report.dropped = stats.dropped;
    report.untimed = stats.untimed;
    report.uncorrelated = stats.uncorrelated;
    return report;
}

//------------------------------------------------------------------------------------------------------------
// [SECTION] Memory: buffers, streams and events
//------------------------------------------------------------------------------------------------------------

std::byte* CudaDevice::raw_allocate_host(size_t bytes, HostMemory memory) {
    if (memory == HostMemory::pinned) {
        make_current();
        const TimeNs pin_start = now_ns();
        void* data = nullptr;
        cuda::PinMethod method = pin_method_;
        try {
            try {
                data = cuda::pin_allocate(bytes, method);
            } catch (const DeviceError&) {
                if (method == cuda::PinMethod::host_alloc) throw;
                method = cuda::PinMethod::host_alloc;  // registration refused this one: the driver's own way
                data = cuda::pin_allocate(bytes, method);
            }
        } catch (const DeviceError& e) {
            throw DeviceError(
                fmt::format("cannot pin {} of host memory ({}); lower pinned_budget_mb, use fewer "
                            "workers or a smaller batch, or pin_memory=false.",
                            format_bytes(static_cast<double>(bytes)), e.what()));
        }
        startup_spans_.record(
            fmt::format(
                "{} {}: a fresh pinned allocation",
                method == cuda::PinMethod::huge_pages ? "huge pages + cudaHostRegister" : "cudaHostAlloc",
                format_bytes(static_cast<double>(bytes))),
            pin_start, now_ns());
        std::lock_guard lock(pinned_mutex_);
        pinned_[data] = method;
        return static_cast<std::byte*>(data);
    }
    const size_t rounded = std::max(kPageBytes, (bytes + kPageBytes - 1) / kPageBytes * kPageBytes);
    auto* data = static_cast<std::byte*>(std::aligned_alloc(kPageBytes, rounded));
    if (!data)
        throw DeviceError(
            fmt::format("cannot allocate {} of host memory; use a smaller batch or fewer workers.",
                        format_bytes(static_cast<double>(bytes))));
    return data;
}

void CudaDevice::raw_free_host(std::byte* data, size_t bytes, HostMemory memory) {
    if (memory != HostMemory::pinned) {
        std::free(data);
        return;
    }
    cuda::PinMethod method = cuda::PinMethod::host_alloc;
    {
        std::lock_guard lock(pinned_mutex_);
        auto it = pinned_.find(data);
        if (it != pinned_.end()) {
            method = it->second;
            pinned_.erase(it);
        }
    }
    cuda::pin_free(data, bytes, method);
}

void* CudaDevice::raw_allocate_device(size_t bytes) {
    make_current();
    void* data = nullptr;
    const cudaError_t status = cudaMalloc(&data, std::max<size_t>(bytes, 1));
    if (status != cudaSuccess)
        throw DeviceError(
            fmt::format("cannot allocate {} on {} (cudaMalloc: {}); use a smaller batch or fewer streams.",
                        format_bytes(static_cast<double>(bytes)), info_.name, cuda::describe(status)));
    return data;
}

void CudaDevice::raw_free_device(void* data, size_t) {
    check_quietly(cudaFree(data), "cudaFree");
}

uintptr_t CudaDevice::raw_create_stream(int index) {
    make_current();
    cudaStream_t stream = nullptr;
    // Non-blocking: no implicit ordering with the legacy default stream, which nothing here uses.
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    activity_->add_stream(stream, index);
    ++live_streams_;
    return reinterpret_cast<uintptr_t>(stream);
}

void CudaDevice::raw_destroy_stream(uintptr_t handle) {
    auto stream = reinterpret_cast<cudaStream_t>(handle);
    check_quietly(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    check_quietly(cudaStreamDestroy(stream), "cudaStreamDestroy");
    // A pipeline is torn down: record every span of its work now, so a report made right after sees it.
    if (--live_streams_ == 0) activity_->flush();
}

uintptr_t CudaDevice::raw_create_event() {
    make_current();
    cudaEvent_t event = nullptr;
    check(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "cudaEventCreateWithFlags");
    return reinterpret_cast<uintptr_t>(event);
}

void CudaDevice::raw_destroy_event(uintptr_t handle) {
    check_quietly(cudaEventDestroy(reinterpret_cast<cudaEvent_t>(handle)), "cudaEventDestroy");
}

//------------------------------------------------------------------------------------------------------------
// [SECTION] Work: copies, kernels, events, synchronisation
//------------------------------------------------------------------------------------------------------------

void CudaDevice::copy_to_device(const DeviceBuffer& dst, size_t dst_offset, const HostBuffer& src,
                                size_t src_offset, size_t bytes, Stream& stream, bool non_blocking,
                                int64_t batch) {
    make_current();
    const cudaStream_t s = native(stream);
    issue({SpanKind::h2d, batch, bytes, src.memory()}, s, "cudaMemcpyAsync (host to device)", [&] {
        return cudaMemcpyAsync(static_cast<std::byte*>(dst.data()) + dst_offset, src.data() + src_offset,
                               bytes, cudaMemcpyHostToDevice, s);
    });
    // tensor.to(device) without non_blocking: the copy, then a wait for the stream (as PyTorch does).
    if (!non_blocking) check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
}

void CudaDevice::copy_to_host(HostBuffer& dst, size_t dst_offset, const DeviceBuffer& src, size_t src_offset,
                              size_t bytes, Stream& stream, bool non_blocking, int64_t batch) {
    make_current();
    const cudaStream_t s = native(stream);
    issue({SpanKind::d2h, batch, bytes, dst.memory()}, s, "cudaMemcpyAsync (device to host)", [&] {
        return cudaMemcpyAsync(dst.data() + dst_offset,
                               static_cast<const std::byte*>(src.data()) + src_offset, bytes,
                               cudaMemcpyDeviceToHost, s);
    });
    // Into pageable memory the copy must land before the host may read it, whatever non_blocking says.
    if (!non_blocking || !dst.pinned()) check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
}

void CudaDevice::launch_kernel(const KernelWork& work, Stream& stream) {
    make_current();
    cuda::BatchKernelArgs args;
    args.input = work.input ? static_cast<const std::byte*>(work.input->data()) + work.input_offset : nullptr;
    args.input_bytes = work.input ? work.input_bytes : 0;
    args.output = work.output ? static_cast<std::byte*>(work.output->data()) + work.output_offset : nullptr;
    args.output_bytes = work.output ? work.output_bytes : 0;
    args.duration_us = work.duration_us;
    args.batch = work.batch;
    args.checksum = checksum_.get();
    const cudaStream_t s = native(stream);
    if (work.normalize) return launch_normalize(work, s);
    issue({SpanKind::kernel, work.batch, work.input_bytes, HostMemory::none}, s,
          "launching the compute kernel", [&] { return cuda::launch_batch_kernel(args, kernel_, s); });
}

void CudaDevice::launch_normalize(const KernelWork& work, cudaStream_t s) {
    cuda::NormalizeArgs args;
    args.input = static_cast<const uint8_t*>(work.input->data()) + work.input_offset;
    args.output = reinterpret_cast<float*>(static_cast<std::byte*>(work.output->data()) + work.output_offset);
    args.pixels = work.input_bytes;
    args.first_element = work.normalize->first_element;
    args.sample_elements = work.normalize->sample_elements;
    args.channel_elements = work.normalize->channel_elements;
    issue({SpanKind::kernel, work.batch, work.input_bytes, HostMemory::none}, s,
          "launching the normalize kernel",
          [&] { return cuda::launch_normalize_kernel(args, kernel_.blocks / 2, s); });
}

void CudaDevice::record(Event& event, Stream& stream) {
    check(cudaEventRecord(native(event), native(stream)), "cudaEventRecord");
}

void CudaDevice::wait(Stream& stream, const Event& event) {
    check(cudaStreamWaitEvent(native(stream), native(event), 0), "cudaStreamWaitEvent");
}

bool CudaDevice::ready(const Event& event) {
    const cudaError_t status = cudaEventQuery(native(event));
    if (status == cudaErrorNotReady) return false;
    check(status, "cudaEventQuery");
    return true;
}

void CudaDevice::synchronize(const Event& event) {
    check(cudaEventSynchronize(native(event)), "cudaEventSynchronize");
}

void CudaDevice::synchronize(Stream& stream) {
    check(cudaStreamSynchronize(native(stream)), "cudaStreamSynchronize");
}

void CudaDevice::synchronize() {
    make_current();
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    activity_
        ->flush();  // as on the simulated GPU: when this returns, the spans of all that work are recorded
}

}  // namespace

//------------------------------------------------------------------------------------------------------------
// [SECTION] The factory's entry points
//------------------------------------------------------------------------------------------------------------

int cuda_usable_device_count(std::string* reason) {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status == cudaSuccess && count > 0) return count;
    std::string why;
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    const std::string needs = fmt::format("CUDA {}.{}", runtime / 1000, runtime % 1000 / 10);
    if (status == cudaErrorInsufficientDriver && driver == 0)
        why = "no NVIDIA driver is installed (libcuda.so.1 was not found)";
    else if (status == cudaErrorInsufficientDriver)
        why = fmt::format(
            "the NVIDIA driver supports CUDA {}.{}, older than the {} this build needs; update the driver",
            driver / 1000, driver % 1000 / 10, needs);
    else if (status == cudaErrorNoDevice || (status == cudaSuccess && count == 0))
        why = "the NVIDIA driver sees no GPU";
    else
        why = "the CUDA driver cannot start: " + cuda::describe(status);
    if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
        visible && status != cudaErrorInsufficientDriver)
        why += fmt::format(" (CUDA_VISIBLE_DEVICES=\"{}\" may hide GPUs)", visible);
    if (reason) *reason = why;
    return 0;
}

std::unique_ptr<Device> make_cuda_device(Trace& trace, const CudaDeviceOptions& options,
                                         std::string* tracing) {
    return std::make_unique<CudaDevice>(trace, options, tracing);
}

std::optional<GpuTraceReport> cuda_trace_report(Device& device) {
    auto* cuda = dynamic_cast<CudaDevice*>(&device);
    if (!cuda) return std::nullopt;
    return cuda->trace_report();
}

}  // namespace pinscope
