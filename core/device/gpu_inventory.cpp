#include "core/device/gpu_inventory.h"

#include <fmt/format.h>

namespace pinscope {

std::string PcieLink::to_string() const {
    if (max_generation == 0 && generation == 0) return {};
    if (max_generation == 0) return fmt::format("PCIe Gen{} x{}", generation, width);
    std::string text = fmt::format("PCIe Gen{} x{}", max_generation, max_width);
    if (generation != 0 && (generation != max_generation || width != max_width))
        text += fmt::format(" (now Gen{} x{}: an idle GPU slows its link)", generation, width);
    return text;
}

#if !PINSCOPE_HAVE_CUDA
CudaEnvironment describe_cuda(bool) {
    CudaEnvironment env;
    env.unavailable = "this build has no CUDA support (the CUDA toolkit was not found when it was built)";
    return env;
}
#endif

}  // namespace pinscope
