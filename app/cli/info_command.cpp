#include "app/cli/info_command.h"

#include <thread>

#include <fmt/format.h>

#include "app/cli/usage_error.h"
#include "core/device/calibration.h"
#include "core/device/device_factory.h"

namespace pinscope {

Command add_info_command(CLI::App& app) {
    CLI::App* cmd = app.add_subcommand("info", "Print the build options and the devices this machine has");
    return {cmd, [] {
                fmt::print("pinscope {}\n", PINSCOPE_VERSION);
                fmt::print("build: CUDA {}, GUI {}\n", cuda_built() ? "on" : "off", PINSCOPE_GUI_BUILT ? "on" : "off");
                fmt::print("host: {} cores\n", std::thread::hardware_concurrency());
                std::string reason;
                const int gpus = cuda_device_count(&reason);
                if (gpus == 0) fmt::print("GPUs: none usable ({})\n", reason);
                const Calibration& cal = builtin_calibration();
                fmt::print("simulated GPU: {} ({} copy engines, pinned H2D {:.1f} GB/s, pageable {:.1f} GB/s at 64 MiB)\n",
                           cal.name, cal.copy_engines, cal.h2d_pinned.gbps(64.0 * (1 << 20)),
                           cal.h2d_pageable.gbps(64.0 * (1 << 20)));
                return kExitOk;
            }};
}

}  // namespace pinscope
