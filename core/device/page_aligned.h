#pragma once
// Host memory that starts on a page boundary, as every buffer the pipeline copies between does: the
// pools' (mmap, and cudaHostAlloc's pages) and the driver's bounce buffers. Where a buffer starts within
// its page is otherwise malloc's choice (16 bytes in when it maps a large block, anywhere in its heap once
// its mmap threshold has grown), and a memcpy's speed can hang on it: on this project's VM (AMD EPYC,
// glibc 2.36) copies of 384 KiB ran at 1.6 to 2.3 GB/s where the destination sat 8 to 24 bytes past the
// source modulo 4 KiB, and at 20 to 24 GB/s at every other offset tried. The simulated GPU's bounce
// buffer came from make_unique: `pinscope run` staged pageable batches at 1.8 GB/s, and a process whose
// earlier frees had raised the threshold staged the same batches ten times as fast.
#include <cstddef>
#include <cstdlib>
#include <new>
#include <vector>

namespace pinscope {

inline constexpr size_t kHostPageBytes = 4096;

// An allocator for std::vector whose blocks start on a page boundary (and span whole pages).
template <class T>
struct PageAlignedAllocator {
    using value_type = T;
    PageAlignedAllocator() = default;
    template <class U>
    PageAlignedAllocator(const PageAlignedAllocator<U>&) {}

    T* allocate(size_t n) {
        const size_t bytes = (n * sizeof(T) + kHostPageBytes - 1) / kHostPageBytes * kHostPageBytes;
        void* data = std::aligned_alloc(kHostPageBytes, bytes > 0 ? bytes : kHostPageBytes);
        if (!data) throw std::bad_alloc();
        return static_cast<T*>(data);
    }
    void deallocate(T* data, size_t) { std::free(data); }

    template <class U>
    bool operator==(const PageAlignedAllocator<U>&) const {
        return true;
    }
};

using PageAlignedBytes = std::vector<std::byte, PageAlignedAllocator<std::byte>>;

// Faults fresh memory in on this thread with a write to each page, which the kernel zeroes: what pinning
// does to every page (both devices fault pinned buffers in so), without writing every byte a second time.
inline void touch_each_page(void* data, size_t bytes) {
    volatile auto* pages = static_cast<volatile unsigned char*>(data);
    for (size_t offset = 0; offset < bytes; offset += kHostPageBytes) pages[offset] = 0;
}

}  // namespace pinscope
