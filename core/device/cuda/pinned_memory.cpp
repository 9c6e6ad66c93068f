#include "core/device/cuda/pinned_memory.h"

#include <cuda_runtime_api.h>

#include <algorithm>

#include <fmt/format.h>

#include "core/device/cuda/cuda_check.h"
#include "core/device/device.h"
#include "core/device/huge_page_memory.h"
#include "core/units/units.h"

namespace pinscope::cuda {

void* pin_allocate(size_t bytes, PinMethod method) {
    if (method == PinMethod::host_alloc) {
        void* data = nullptr;
        check(cudaHostAlloc(&data, std::max<size_t>(bytes, 1), cudaHostAllocDefault), "cudaHostAlloc");
        return data;
    }
    const size_t size = huge_page_rounded(bytes);
    void* data = map_huge_pages(size);
    if (!data)
        throw DeviceError(
            fmt::format("cannot map {} of host memory to pin", format_bytes(static_cast<double>(bytes))));
    // Fault the pages in here, so the kernel zeroes them on this thread (workers pin their buffers in
    // parallel) rather than inside cudaHostRegister, which holds the driver while it runs.
    volatile auto* bytes_in = static_cast<volatile unsigned char*>(data);
    for (size_t offset = 0; offset < size; offset += 4096) bytes_in[offset] = 0;
    const cudaError_t status = cudaHostRegister(data, size, cudaHostRegisterDefault);
    if (status != cudaSuccess) {
        unmap_huge_pages(data, size);
        check(status, "cudaHostRegister");
    }
    return data;
}

void pin_free(void* data, size_t bytes, PinMethod method) noexcept {
    if (method == PinMethod::host_alloc) {
        check_quietly(cudaFreeHost(data), "cudaFreeHost");
        return;
    }
    check_quietly(cudaHostUnregister(data), "cudaHostUnregister");
    unmap_huge_pages(data, bytes);
}

}  // namespace pinscope::cuda
