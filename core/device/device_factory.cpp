#include "core/device/device_factory.h"

#include <fmt/format.h>

#include "core/config/knobs.h"
#include "core/device/calibration.h"
#include "core/device/cuda/cuda_device.h"  // declarations only, no CUDA types: the one includer
#include "core/device/sim/sim_device.h"

namespace pinscope {

bool cuda_built() {
    return PINSCOPE_HAVE_CUDA != 0;
}

int cuda_device_count(std::string* reason) {
#if PINSCOPE_HAVE_CUDA
    return cuda_usable_device_count(reason);
#else
    if (reason) *reason = "this build has no CUDA support (the CUDA toolkit was not found when it was built)";
    return 0;
#endif
}

std::optional<GpuTraceReport> gpu_trace_report([[maybe_unused]] Device& device) {
#if PINSCOPE_HAVE_CUDA
    return cuda_trace_report(device);
#else
    return std::nullopt;
#endif
}

DeviceSelection make_device(const PipelineConfig& config, Trace& trace) {
    const DeviceChoice choice = config.device;
    std::string no_gpu;
    // Slow motion, another copy-engine count and a cold start are the simulated GPU's: auto picks it.
    const bool sim_only = config.slow_motion != 1 || config.copy_engines != 0 || config.cold_start;
    int gpus = 0;
    if (choice != DeviceChoice::sim && !(choice == DeviceChoice::auto_detect && sim_only) &&
        (gpus = cuda_device_count(&no_gpu)) > 0) {
#if PINSCOPE_HAVE_CUDA
        if (config.gpu >= gpus)
            throw DeviceError(
                fmt::format("gpu={}: this machine has {} CUDA GPU{} (numbered from 0); "
                            "`pinscope info` lists them.",
                            config.gpu, gpus, gpus == 1 ? "" : "s"));
        std::string tracing;
        CudaDeviceOptions options;
        options.ordinal = config.gpu;
        options.cupti = config.cupti;
        auto device = make_cuda_device(trace, options, &tracing);
        std::string why =
            choice == DeviceChoice::cuda ? "asked for with device=cuda" : "a CUDA GPU and driver are present";
        return {std::move(device), why + "; " + tracing};
#endif
    }
    if (choice == DeviceChoice::cuda)
        throw DeviceError("device=cuda: no usable CUDA GPU: " + no_gpu +
                          "; use device=sim for the simulated GPU.");

    const std::string& file = config.calibration;
    Calibration calibration = file.empty() ? builtin_calibration() : load_calibration(file);
    std::string why = choice == DeviceChoice::sim ? "asked for with device=sim"
                      : no_gpu.empty() ? "slow motion, copy_engines or a cold start ask for the simulated GPU"
                                       : "no CUDA GPU: " + no_gpu;
    why += "; calibration: " + (file.empty() ? calibration.name + " (built in)" : file);
    if (config.copy_engines > 0) {
        calibration.copy_engines = config.copy_engines;
        why +=
            fmt::format(", with {} copy engine{}", config.copy_engines, config.copy_engines == 1 ? "" : "s");
    }
    if (config.slow_motion != 1)
        why += fmt::format(", in slow motion ({}x)", knob_number(config.slow_motion));
    return {std::make_unique<SimDevice>(trace, std::move(calibration), config.slow_motion, config.gpu,
                                        config.cold_start || config.naive_benchmark),
            std::move(why)};
}

}  // namespace pinscope
