#include "core/device/cuda/cuda_check.h"

#include <atomic>

#include <fmt/format.h>

#include "core/device/device.h"

namespace pinscope::cuda {

std::string describe(cudaError_t status) {
    return fmt::format("{} ({})", cudaGetErrorString(status), cudaGetErrorName(status));
}

void check(cudaError_t status, const char* call) {
    if (status != cudaSuccess) throw DeviceError(fmt::format("{}: {}", call, describe(status)));
}

void check_quietly(cudaError_t status, const char* call) noexcept {
    static std::atomic<bool> reported{false};
    // One line is enough: after a sticky error every later call fails the same way.
    if (status != cudaSuccess && !reported.exchange(true))
        fmt::print(stderr, "pinscope: {} failed while releasing GPU resources: {}\n", call, describe(status));
}

}  // namespace pinscope::cuda
