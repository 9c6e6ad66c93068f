#pragma once
// The kernel that normalises a uint8 batch into float32 on the GPU (transfer_dtype uint8), as NVIDIA
// DALI's and FFCV's loaders do after the copy: out[i] = in[i] * scale(c) + bias(c), with the host
// collate's constants (core/device/normalize.h). Memory-bound: it reads a byte and writes four per pixel.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace pinscope::cuda {

struct NormalizeArgs {
    const uint8_t* input = nullptr;
    float* output = nullptr;
    size_t pixels = 0;
    // Where the pixels sit in their batch: the first one's element index, each sample's elements and
    // each channel plane's (they say which channel, so which constants, a pixel takes).
    int64_t first_element = 0;
    int64_t sample_elements = 1;
    int64_t channel_elements = 1;
};

// Returns the launch status; the caller checks it.
cudaError_t launch_normalize_kernel(const NormalizeArgs& args, int sm_count, cudaStream_t stream);

}  // namespace pinscope::cuda
