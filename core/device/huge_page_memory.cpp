#include "core/device/huge_page_memory.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>

namespace pinscope {

size_t huge_page_rounded(size_t bytes) {
    return (std::max<size_t>(bytes, 1) + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
}

void* map_huge_pages(size_t bytes) {
    // Map one huge page more than needed, then trim both ends to a huge-page boundary.
    const size_t size = huge_page_rounded(bytes);
    void* raw =
        mmap(nullptr, size + kHugePageBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return nullptr;
    const auto start = reinterpret_cast<uintptr_t>(raw);
    const uintptr_t aligned = (start + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
    if (aligned > start) munmap(raw, aligned - start);
    const uintptr_t end = start + size + kHugePageBytes;
    if (end > aligned + size) munmap(reinterpret_cast<void*>(aligned + size), end - (aligned + size));
    void* data = reinterpret_cast<void*>(aligned);
    madvise(data, size, MADV_HUGEPAGE);  // a hint: refused or ignored, the memory still works
    return data;
}

void unmap_huge_pages(void* data, size_t bytes) noexcept {
    if (data) munmap(data, huge_page_rounded(bytes));
}

}  // namespace pinscope
