#pragma once
// CUDA runtime errors. A failing call a user can do something about (out of memory, no driver, a
// busy or lost GPU) becomes a DeviceError that names the call and CUDA's own words for the error.
#include <cuda_runtime_api.h>

#include <string>

namespace pinscope::cuda {

// Throws DeviceError("<call>: <CUDA's message> (<error name>)") unless status is cudaSuccess.
void check(cudaError_t status, const char* call);

// For destructors and release paths, which must not throw: reports on stderr once and goes on.
void check_quietly(cudaError_t status, const char* call) noexcept;

std::string describe(cudaError_t status);  // "out of memory (cudaErrorMemoryAllocation)"

}  // namespace pinscope::cuda
