#pragma once
// Page-locked host memory, two ways:
// - cudaHostAlloc: the driver allocates and pins the pages itself;
// - huge pages + cudaHostRegister: anonymous memory mapped on a 2 MiB boundary and advised to use
//   transparent huge pages, touched, then registered. With huge pages there are 512 times fewer pages
//   to pin, so a batch-sized buffer is pinned far faster, and the first batches of a run wait less for
//   the pool to be pinned. `pinscope probe` times both.
// Both are ordinary pinned memory to CUDA: copies from them run at the same speed and CUPTI reports
// them as PINNED.
#include <cstddef>

namespace pinscope::cuda {

enum class PinMethod { host_alloc, huge_pages };

// Throws DeviceError (naming the CUDA call and its error) when the memory cannot be pinned.
void* pin_allocate(size_t bytes, PinMethod method);
void pin_free(void* data, size_t bytes, PinMethod method) noexcept;

}  // namespace pinscope::cuda
