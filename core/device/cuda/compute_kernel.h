#pragma once
// The compute kernel of every batch: it reads every byte copied in, keeps the GPU busy until
// `duration_us` has passed since it started, and writes the `output_bytes` result that is copied back.
// It fills every SM (two blocks of 1024 threads per SM), so kernels of different streams run one after
// another, as the simulated GPU's single compute engine does.
//
// Its duration comes from a calibration made once per device: a spin of a known number of SM clock
// cycles is timed with CUDA events at two lengths, which gives the clock rate, and a kernel that does
// not spin times itself on the GPU's global timer, which gives the fixed cost.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace pinscope::cuda {

struct KernelTiming {
    double cycles_per_us = 0;  // SM clock cycles per microsecond while the kernel spins
    double fixed_us = 0;       // duration of a kernel that spins for no cycle (reads, reduction, writes)
    int blocks = 0;            // grid size: two blocks per SM
};

struct BatchKernelArgs {
    const void* input = nullptr;
    size_t input_bytes = 0;
    void* output = nullptr;
    size_t output_bytes = 0;
    double duration_us = 0;
    int64_t batch = 0;
    uint32_t* checksum = nullptr;  // one device word every launch adds its sum into (keeps the reads real)
};

// Times the kernel on `stream` (and leaves it idle). Throws DeviceError on CUDA errors.
KernelTiming calibrate_batch_kernel(cudaStream_t stream, int sm_count, uint32_t* checksum);

// Returns the launch status; the caller checks it.
cudaError_t launch_batch_kernel(const BatchKernelArgs& args, const KernelTiming& timing, cudaStream_t stream);

}  // namespace pinscope::cuda
