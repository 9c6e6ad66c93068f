#include "core/device/cuda/pinned_memory.h"

#include <cuda_runtime_api.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdint>

#include <fmt/format.h>

#include "core/device/cuda/cuda_check.h"
#include "core/device/device.h"
#include "core/device/page_aligned.h"
#include "core/units/units.h"

namespace pinscope::cuda {
namespace {

constexpr size_t kHugePage = 2u << 20;

size_t rounded(size_t bytes) {
    return (std::max<size_t>(bytes, 1) + kHugePage - 1) / kHugePage * kHugePage;
}

// Anonymous memory starting on a huge-page boundary: map one huge page more, then trim both ends.
void* map_aligned(size_t size) {
    void* raw = mmap(nullptr, size + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return nullptr;
    const auto start = reinterpret_cast<uintptr_t>(raw);
    const uintptr_t aligned = (start + kHugePage - 1) / kHugePage * kHugePage;
    if (aligned > start) munmap(raw, aligned - start);
    const uintptr_t end = start + size + kHugePage;
    if (end > aligned + size) munmap(reinterpret_cast<void*>(aligned + size), end - (aligned + size));
    return reinterpret_cast<void*>(aligned);
}

}  // namespace

void* pin_allocate(size_t bytes, PinMethod method) {
    if (method == PinMethod::host_alloc) {
        void* data = nullptr;
        check(cudaHostAlloc(&data, std::max<size_t>(bytes, 1), cudaHostAllocDefault), "cudaHostAlloc");
        return data;
    }
    const size_t size = rounded(bytes);
    void* data = map_aligned(size);
    if (!data)
        throw DeviceError(
            fmt::format("cannot map {} of host memory to pin", format_bytes(static_cast<double>(bytes))));
    madvise(data, size, MADV_HUGEPAGE);  // a hint: without transparent huge pages it still works, slower
    // Fault the pages in here, so the kernel zeroes them on this thread (workers pin their buffers in
    // parallel) rather than inside cudaHostRegister, which holds the driver while it runs.
    touch_each_page(data, size);
    const cudaError_t status = cudaHostRegister(data, size, cudaHostRegisterDefault);
    if (status != cudaSuccess) {
        munmap(data, size);
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
    munmap(data, rounded(bytes));
}

}  // namespace pinscope::cuda
