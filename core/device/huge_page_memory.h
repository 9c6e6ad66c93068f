#pragma once
// Anonymous host memory on a 2 MiB boundary, advised to use transparent huge pages: the CUDA device maps
// its pinned pools so before cudaHostRegister (cuda/pinned_memory.h), and the simulated GPU maps its
// pinned ones the same way, so that a loader's workers write the same kind of pages on either. On an
// H100 host the transfer-bound loader (14 workers collating 96 MiB batches) lost 5% of its samples/s on
// the simulated GPU to 4 KiB pages, its workers leaving the engine idle 6% of the run against 2% on the
// GPU (docs/h100-results.md, "Both directions load the host's memory").
#include <cstddef>

namespace pinscope {

constexpr size_t kHugePageBytes = size_t{2} << 20;

// `bytes` rounded up to whole huge pages (at least one).
size_t huge_page_rounded(size_t bytes);

// huge_page_rounded(bytes) of memory, not yet touched; nullptr when it cannot be mapped. Without
// transparent huge pages (the kernel's setting "never") it is ordinary memory and still works.
void* map_huge_pages(size_t bytes);
void unmap_huge_pages(void* data, size_t bytes) noexcept;

}  // namespace pinscope
