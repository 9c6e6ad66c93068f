// A standalone experiment (docs/h100-results.md, "The link at its limit"): 96 MiB pinned H2D copies from one
// buffer or a pool of 28 (2.6 GiB, huge pages + cudaHostRegister, as pinscope pins), idle and while 14
// threads write memory with streaming stores at 25 or 50 GB/s in all, or as fast as they can. It tells
// the pinned pool's size (the IOMMU's reach) apart from the host's write traffic as what slows the copies.
//   nvcc -O2 -std=c++17 -o h2d_under_writes tools/h2d_under_writes.cu && ./h2d_under_writes
#include <cuda_runtime.h>
#include <emmintrin.h>
#include <sys/mman.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>
using clk = std::chrono::steady_clock;
static double now_s() {
    return std::chrono::duration<double>(clk::now().time_since_epoch()).count();
}
constexpr size_t MiB = 1 << 20, kBatch = 96 * MiB;

void fill_nt(char* d, size_t n, int v) {
    __m128i x = _mm_set1_epi8((char)v);
    for (size_t i = 0; i < n; i += 16) _mm_stream_si128((__m128i*)(d + i), x);
    _mm_sfence();
}

struct Writers {
    std::atomic<bool> stop{false};
    std::atomic<size_t> written{0};
    std::vector<std::thread> t;
    // each thread writes whole targets (round robin over `targets`), total rate capped at cap_gbps (0: none)
    Writers(int n, std::vector<char*> targets, size_t bytes, double cap_gbps) {
        for (int k = 0; k < n; ++k)
            t.emplace_back([=] {
                double start = now_s();
                size_t mine = 0;
                for (size_t i = k; !stop; i += n) {
                    char* d = targets[i % targets.size()];
                    for (size_t off = 0; off < bytes && !stop; off += MiB) {
                        fill_nt(d + off, MiB, (int)i);
                        mine += MiB;
                        written += MiB;
                    }
                    if (cap_gbps > 0) {
                        double due = start + mine / (cap_gbps / n * 1e9);
                        while (!stop && now_s() < due)
                            std::this_thread::sleep_for(std::chrono::microseconds(200));
                    }
                }
            });
    }
    ~Writers() {
        stop = true;
        for (auto& x : t) x.join();
    }
};

double run_copies(std::vector<char*>& pool, void* dev, cudaStream_t s, double seconds, Writers* w,
                  double* wgbps) {
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    std::vector<double> r;
    size_t w0 = w ? w->written.load() : 0;
    double t0 = now_s();
    for (size_t i = 0; now_s() - t0 < seconds; ++i) {
        cudaEventRecord(a, s);
        cudaMemcpyAsync(dev, pool[i % pool.size()], kBatch, cudaMemcpyHostToDevice, s);
        cudaEventRecord(b, s);
        cudaEventSynchronize(b);
        float ms;
        cudaEventElapsedTime(&ms, a, b);
        r.push_back(kBatch / (ms * 1e-3) * 1e-9);
    }
    if (w) *wgbps = (w->written.load() - w0) / (now_s() - t0) * 1e-9;
    std::sort(r.begin(), r.end());
    return r[r.size() / 2];
}

int main() {
    void* dev;
    cudaMalloc(&dev, kBatch);
    cudaStream_t s;
    cudaStreamCreate(&s);
    auto alloc = [](int n, bool huge) {
        std::vector<char*> v;
        for (int i = 0; i < n; ++i) {
            void* p;
            if (huge) {
                p = mmap(nullptr, kBatch, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
                madvise(p, kBatch, MADV_HUGEPAGE);
                memset(p, 1, kBatch);
                cudaHostRegister(p, kBatch, cudaHostRegisterDefault);
            } else {
                cudaHostAlloc(&p, kBatch, 0);
                memset(p, 1, kBatch);
            }
            v.push_back((char*)p);
        }
        return v;
    };
    auto pool = alloc(28, true);
    std::vector<char*> one(pool.begin(), pool.begin() + 1);
    std::vector<char*> other;  // pageable, writers' own
    for (int i = 0; i < 14; ++i) {
        char* p = (char*)aligned_alloc(4096, kBatch);
        memset(p, 1, kBatch);
        other.push_back(p);
    }
    double wg = 0;
    for (int round = 0; round < 2; ++round) {
        printf("round %d\n", round);
        printf("  1 buffer idle:                        %.1f GB/s\n",
               run_copies(one, dev, s, 0.4, nullptr, nullptr));
        printf("  28 buffers (2.6 GiB) idle:            %.1f GB/s\n",
               run_copies(pool, dev, s, 0.4, nullptr, nullptr));
        for (double cap : {25.0, 50.0, 0.0}) {
            {
                Writers w(14, other, kBatch, cap);
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
                double g = run_copies(one, dev, s, 0.4, &w, &wg);
                printf("  1 buffer, 14 writers own memory cap %g:  %.1f GB/s (writes %.1f)\n", cap, g, wg);
            }
            {
                Writers w(14, other, kBatch, cap);
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
                double g = run_copies(pool, dev, s, 0.4, &w, &wg);
                printf("  28 buffers, 14 writers own memory cap %g: %.1f GB/s (writes %.1f)\n", cap, g, wg);
            }
            {
                std::vector<char*> rest(pool.begin() + 14, pool.end());
                std::vector<char*> first(pool.begin(), pool.begin() + 14);
                Writers w(14, rest, kBatch, cap);
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
                double g = run_copies(first, dev, s, 0.4, &w, &wg);
                printf("  14 pinned buffers, 14 writers other 14 pinned cap %g: %.1f GB/s (writes %.1f)\n",
                       cap, g, wg);
            }
        }
    }
}
