#pragma once
// Picks the device a config asks for. `auto` takes the CUDA device when this build has CUDA and a GPU
// with a working driver is present, and the simulated GPU otherwise; `why` says which and why, in
// words a user can act on, and for the CUDA device how its GPU spans are recorded.
#include <memory>
#include <optional>
#include <string>

#include "core/config/pipeline_config.h"
#include "core/device/device.h"
#include "core/device/gpu_trace_report.h"
#include "core/trace/trace.h"

namespace pinscope {

struct DeviceSelection {
    std::unique_ptr<Device> device;
    std::string why;
};

// Reads config.device, config.gpu (the ordinal), config.calibration (simulated GPU) and config.cupti
// (CUDA device). Throws DeviceError when the choice cannot be honoured (cuda asked for, none usable, no
// GPU of that number) and CalibrationError when the calibration file is unusable.
DeviceSelection make_device(const PipelineConfig& config, Trace& trace);

// How a real GPU's spans were recorded (CUPTI or CUDA events) and what was lost on the way; nullopt
// for the simulated GPU, which records every span itself and loses none.
std::optional<GpuTraceReport> gpu_trace_report(Device& device);

// Whether this build can drive a real GPU, and if not, why (for `pinscope info` and --device auto).
bool cuda_built();
// How many CUDA devices are usable now; 0 with `reason` set when none (no driver, no GPU, no CUDA build).
int cuda_device_count(std::string* reason = nullptr);

}  // namespace pinscope
