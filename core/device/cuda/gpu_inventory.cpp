// describe_cuda(): the GPUs, driver, runtime and CUPTI this process sees, and whether tracing works.
#include "core/device/gpu_inventory.h"

#include <cuda_runtime_api.h>

#include <fmt/format.h>

#include "core/device/cuda/cuda_device.h"
#include "core/device/cuda/cupti_library.h"
#include "core/device/cuda/pcie_link.h"

namespace pinscope {
namespace {

std::string cuda_version(int version) {
    return fmt::format("{}.{}", version / 1000, version % 1000 / 10);
}

// A real traced run in miniature: a pinned and a pageable copy and a kernel, then a look at the spans.
std::string check_tracing() {
    constexpr size_t kBytes = 1 << 20;
    try {
        Trace trace;
        std::string method;
        std::unique_ptr<Device> device = make_cuda_device(trace, CudaDeviceOptions{}, &method);
        {
            Stream stream = device->create_stream(0);
            HostBuffer pinned = device->allocate_host(kBytes, HostMemory::pinned);
            HostBuffer pageable = device->allocate_host(kBytes, HostMemory::pageable);
            DeviceBuffer input = device->allocate_device(kBytes);
            device->copy_to_device(input, 0, pinned, 0, kBytes, stream, true, 1);
            device->copy_to_device(input, 0, pageable, 0, kBytes, stream, true, 2);
            KernelWork work;
            work.input = &input;
            work.input_bytes = kBytes;
            work.duration_us = 10;
            work.batch = 3;
            device->launch_kernel(work, stream);
            device->synchronize();
        }
        TraceStore store;
        trace.collect(store);
        int found = 0;
        bool memory_right = true;
        for (const LaneInfo& lane : store.lanes())
            for (const Span& span : store.spans(lane.id)) {
                if (span.kind != SpanKind::h2d && span.kind != SpanKind::kernel) continue;
                ++found;
                if (span.kind == SpanKind::h2d)
                    memory_right &=
                        span.memory == (span.batch == 1 ? HostMemory::pinned : HostMemory::pageable);
            }
        const GpuTraceReport report = *cuda_trace_report(*device);
        if (!report.cupti) return "partly: " + report.method + "; GPU spans are timed by CUDA events";
        if (found != 3 || !memory_right)
            return fmt::format("no: CUPTI recorded {} of 3 GPU spans{}", found,
                               memory_right ? "" : ", with wrong memory kinds");
        return "yes: CUPTI recorded every GPU span with its batch id and told pinned from pageable copies";
    } catch (const std::exception& e) {
        return std::string("no: ") + e.what();
    }
}

}  // namespace

CudaEnvironment describe_cuda(bool with_tracing_check) {
    CudaEnvironment env;
    env.built = true;
    int runtime = 0, driver = 0;
    cudaRuntimeGetVersion(&runtime);
    cudaDriverGetVersion(&driver);
    env.runtime = cuda_version(runtime);
    const std::string release = cuda::driver_release();
    env.driver = driver == 0
                     ? "none"
                     : (release.empty() ? "" : release + ", ") + "supports CUDA " + cuda_version(driver);
    std::string why;
    if (const cuda::CuptiLibrary* cupti = cuda::CuptiLibrary::get(&why))
        env.cupti = fmt::format("{} ({})", cupti->version(), cupti->path);
    else
        env.cupti = "not usable: " + why;

    const int count = cuda_usable_device_count(&env.unavailable);
    for (int i = 0; i < count; ++i) {
        cudaDeviceProp props{};
        if (cudaGetDeviceProperties(&props, i) != cudaSuccess) continue;
        GpuDescription gpu;
        gpu.ordinal = i;
        gpu.name = props.name;
        gpu.memory_bytes = static_cast<int64_t>(props.totalGlobalMem);
        gpu.compute_major = props.major;
        gpu.compute_minor = props.minor;
        gpu.multiprocessors = props.multiProcessorCount;
        gpu.copy_engines = props.asyncEngineCount;
        char bus_id[32] = {};
        if (cudaDeviceGetPCIBusId(bus_id, sizeof(bus_id), i) == cudaSuccess) gpu.pci_bus_id = bus_id;
        gpu.link = cuda::pcie_link(gpu.pci_bus_id);
        env.gpus.push_back(gpu);
    }
    if (with_tracing_check && count > 0) env.tracing = check_tracing();
    return env;
}

}  // namespace pinscope
