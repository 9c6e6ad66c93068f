#include "core/device/cuda/normalize_kernel.h"

#include <algorithm>

#include "core/device/normalize.h"

namespace pinscope::cuda {
namespace {

constexpr int kNormalizeThreads = 256;  // per block

struct Constants {
    float scale[3], bias[3];
};

// Per pixel: its place in its sample, its channel, then one multiply-add. In 32 bits (a 64-bit
// remainder costs the GPU many instructions): a batch holds at most 4 GiB of float32 (validate.cpp), so
// first_in_sample plus a pixel's index stays below 2^31.
__global__ void normalize_kernel(const uint8_t* in, float* out, size_t pixels, uint32_t first_in_sample,
                                 uint32_t sample_elements, uint32_t channel_elements, Constants k) {
    const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
    for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < pixels; i += stride) {
        const uint32_t within = (first_in_sample + static_cast<uint32_t>(i)) % sample_elements;
        const uint32_t channel = (within / channel_elements) % 3;
        // Rounded multiply, then rounded add (no fused multiply-add): the host's collate makes the
        // same float bit for bit.
        out[i] = __fadd_rn(__fmul_rn(static_cast<float>(in[i]), k.scale[channel]), k.bias[channel]);
    }
}

}  // namespace

cudaError_t launch_normalize_kernel(const NormalizeArgs& a, int sm_count, cudaStream_t stream) {
    if (a.pixels == 0) return cudaSuccess;
    Constants k{};
    for (int c = 0; c < 3; ++c) k.scale[c] = normalize_scale(c), k.bias[c] = normalize_bias(c);
    const auto sample = static_cast<uint32_t>(std::max<int64_t>(a.sample_elements, 1));
    const auto channel = static_cast<uint32_t>(std::max<int64_t>(a.channel_elements, 1));
    const auto first = static_cast<uint32_t>(a.first_element % sample);
    // Enough blocks to fill every SM several times over; the loop strides over the rest.
    const size_t wanted = (a.pixels + kNormalizeThreads - 1) / kNormalizeThreads;
    const int blocks =
        static_cast<int>(std::min<size_t>(wanted, static_cast<size_t>(std::max(sm_count, 1)) * 8));
    normalize_kernel<<<blocks, kNormalizeThreads, 0, stream>>>(a.input, a.output, a.pixels, first, sample,
                                                               channel, k);
    return cudaGetLastError();
}

}  // namespace pinscope::cuda
