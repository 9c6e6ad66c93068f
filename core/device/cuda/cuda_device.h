#pragma once
// The real GPU behind the Device interface. This header has no CUDA types, so the factory (and only
// the factory) can include it from code that builds without the toolkit's headers in view.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/device/device.h"
#include "core/device/gpu_trace_report.h"
#include "core/trace/trace.h"

namespace pinscope {

struct CudaDeviceOptions {
    int ordinal = 0;    // which GPU
    bool cupti = true;  // record GPU spans with CUPTI; otherwise (or when CUPTI cannot) with CUDA events
};

// How many GPUs the CUDA driver offers; 0 with `reason` set (no driver, no GPU, a driver too old for
// this build's runtime) in words a user can act on.
int cuda_usable_device_count(std::string* reason);

// Throws DeviceError when the GPU cannot be opened. `tracing` says how GPU spans will be recorded and,
// when not by CUPTI, why not.
std::unique_ptr<Device> make_cuda_device(Trace& trace, const CudaDeviceOptions& options,
                                         std::string* tracing);

// How a CUDA device records its GPU spans, and what it lost. Counts cover the work flushed so far
// (synchronize() flushes). nullopt when `device` is not a CUDA device.
std::optional<GpuTraceReport> cuda_trace_report(Device& device);

}  // namespace pinscope
