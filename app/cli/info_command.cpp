#include "app/cli/info_command.h"

#include <thread>

#include <fmt/format.h>

#include "app/cli/usage_error.h"
#include "core/device/calibration.h"
#include "core/device/device_factory.h"
#include "core/device/gpu_inventory.h"
#include "core/units/units.h"

namespace pinscope {
namespace {

void print_gpus(const CudaEnvironment& env) {
    if (env.built) {
        fmt::print("CUDA: runtime {} (in this build), driver {}\n", env.runtime,
                   env.driver.empty() ? "unknown" : env.driver);
        fmt::print("CUPTI: {}\n", env.cupti);
    }
    if (env.gpus.empty()) {
        fmt::print("GPUs: none usable ({})\n", env.unavailable);
        return;
    }
    for (const GpuDescription& gpu : env.gpus) {
        const std::string link = gpu.link.to_string();
        fmt::print("GPU {}: {}, {}, compute {}.{}, {} SMs, {} copy engines, {}{}\n", gpu.ordinal, gpu.name,
                   format_bytes(static_cast<double>(gpu.memory_bytes)), gpu.compute_major, gpu.compute_minor,
                   gpu.multiprocessors, gpu.copy_engines, link.empty() ? "PCIe link unknown" : link,
                   gpu.pci_bus_id.empty() ? "" : " at " + gpu.pci_bus_id);
    }
    if (!env.tracing.empty()) fmt::print("GPU tracing works: {}\n", env.tracing);
}

}  // namespace

Command add_info_command(CLI::App& app) {
    CLI::App* cmd = app.add_subcommand("info", "Print the build options and the devices this machine has");
    return {cmd, [] {
                fmt::print("pinscope {}\n", PINSCOPE_VERSION);
                fmt::print("build: CUDA {}, GUI {}\n", cuda_built() ? "on" : "off",
                           PINSCOPE_GUI_BUILT ? "on" : "off");
                fmt::print("host: {} cores\n", std::thread::hardware_concurrency());
                print_gpus(describe_cuda(/*check_tracing=*/true));
                const Calibration& cal = builtin_calibration();
                fmt::print("simulated GPU: {} ({} copy engines, pinned H2D {}, pageable {} at 64 MiB)\n",
                           cal.name, cal.copy_engines, format_gbps(cal.h2d_pinned.gbps(64.0 * (1 << 20))),
                           format_gbps(cal.h2d_pageable.gbps(64.0 * (1 << 20))));
                return kExitOk;
            }};
}

}  // namespace pinscope
