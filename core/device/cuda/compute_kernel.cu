#include "core/device/cuda/compute_kernel.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/device/median.h"

namespace pinscope::cuda {
namespace {

constexpr int kThreads = 1024;
constexpr int kBlocksPerSm =
    2;  // 2 x 1024 threads: every thread slot of an SM, so no other kernel fits beside

__device__ uint32_t read_bytes(const uint8_t* p, size_t n, size_t tid, size_t threads) {
    uint32_t acc = 0;
    // 16-byte loads over the aligned body; single bytes for the unaligned head and tail.
    const size_t head = min(n, static_cast<size_t>((16 - reinterpret_cast<uintptr_t>(p) % 16) % 16));
    if (tid < head) acc += p[tid];
    const uint4* body = reinterpret_cast<const uint4*>(p + head);
    const size_t words = (n - head) / 16;
    for (size_t i = tid; i < words; i += threads) {
        const uint4 v = body[i];
        acc += v.x + v.y + v.z + v.w;
    }
    const size_t tail = head + words * 16;
    if (tid < n - tail) acc += p[tail + tid];
    return acc;
}

__device__ uint32_t block_sum(uint32_t value) {
    __shared__ uint32_t warp_sums[kThreads / 32];
    for (int offset = 16; offset > 0; offset /= 2) value += __shfl_xor_sync(0xffffffffu, value, offset);
    if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = value;
    __syncthreads();
    uint32_t total = 0;
    if (threadIdx.x < 32) {
        total = threadIdx.x < blockDim.x / 32 ? warp_sums[threadIdx.x] : 0;
        for (int offset = 16; offset > 0; offset /= 2) total += __shfl_xor_sync(0xffffffffu, total, offset);
    }
    return total;
}

__device__ unsigned long long global_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// `window` (calibration only, else null) receives the first block's start and the last block's end
// on the GPU's global timer: the kernel's own duration, without the launch around it.
__global__ void __launch_bounds__(kThreads, kBlocksPerSm)
    batch_kernel(const uint8_t* input, size_t input_bytes, uint8_t* output, size_t output_bytes,
                 long long spin_cycles, uint32_t batch, uint32_t* checksum, unsigned long long* window) {
    if (window && threadIdx.x == 0) atomicMin(&window[0], global_ns());
    const long long start = clock64();
    const size_t tid = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const size_t threads = static_cast<size_t>(gridDim.x) * blockDim.x;
    const uint32_t acc = read_bytes(input, input_bytes, tid, threads);
    while (clock64() - start < spin_cycles) {
    }
    // The sum lands in device memory, so the compiler cannot drop the reads.
    const uint32_t total = block_sum(acc);
    if (threadIdx.x == 0) atomicAdd(checksum, total);
    for (size_t i = tid; i < output_bytes; i += threads) output[i] = static_cast<uint8_t>(i * 131u + batch);
    if (window) {
        __syncthreads();
        if (threadIdx.x == 0) atomicMax(&window[1], global_ns());
    }
}

cudaError_t launch(const BatchKernelArgs& a, long long cycles, int blocks, cudaStream_t stream,
                   unsigned long long* window = nullptr) {
    batch_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<const uint8_t*>(a.input), a.input_bytes,
                                                  static_cast<uint8_t*>(a.output), a.output_bytes, cycles,
                                                  static_cast<uint32_t>(a.batch), a.checksum, window);
    return cudaGetLastError();
}

[[noreturn]] void calibration_failed(const std::string& why) {
    throw std::runtime_error("calibrating the compute kernel: " + why);
}

// Takes up to `repeats` timings in microseconds, each by `time_one(us)`, stopping at CUDA's first error.
template <class TimeOne>
cudaError_t take_timings(int repeats, std::vector<double>& us, TimeOne&& time_one) {
    cudaError_t status = cudaSuccess;
    for (int r = 0; r < repeats && status == cudaSuccess; ++r) status = time_one(us);
    return status;
}

// The median of the timings taken, or the calibration fails saying why there is none.
double median_or_fail(cudaError_t status, const std::vector<double>& us) {
    if (status != cudaSuccess) calibration_failed(cudaGetErrorString(status));
    if (us.empty()) calibration_failed("no timing came back");
    return median(us);
}

BatchKernelArgs spin_only(uint32_t* checksum) {
    BatchKernelArgs args;
    args.checksum = checksum;
    return args;
}

// Median time in microseconds per launch of `repeats` timings of kBackToBack launches spinning for
// `cycles`, queued between one pair of events. The gaps between launches are counted too, so only the
// difference of two such timings is used: it gives the clock rate.
double time_spin(long long cycles, int blocks, uint32_t* checksum, cudaStream_t stream, int repeats) {
    constexpr int kBackToBack = 16;
    cudaEvent_t begin, end;
    if (cudaEventCreate(&begin) != cudaSuccess || cudaEventCreate(&end) != cudaSuccess)
        calibration_failed("cudaEventCreate failed");
    const BatchKernelArgs args = spin_only(checksum);
    std::vector<double> us;
    const cudaError_t status = take_timings(repeats, us, [&](std::vector<double>& out) {
        cudaError_t status = cudaEventRecord(begin, stream);
        for (int k = 0; k < kBackToBack && status == cudaSuccess; ++k)
            status = launch(args, cycles, blocks, stream);
        if (status == cudaSuccess) status = cudaEventRecord(end, stream);
        if (status == cudaSuccess) status = cudaEventSynchronize(end);
        float ms = 0;
        if (status == cudaSuccess) status = cudaEventElapsedTime(&ms, begin, end);
        if (status == cudaSuccess) out.push_back(ms * 1000.0 / kBackToBack);
        return status;
    });
    cudaEventDestroy(begin);
    cudaEventDestroy(end);
    return median_or_fail(status, us);
}

// Median duration in microseconds of a kernel that spins for no cycle, from the GPU's global timer
// read inside it (first block's start to last block's end). Events around one launch would add their
// own cost, several microseconds: a 10 us kernel then ran 4 us on an H100.
double time_fixed_in_kernel(int blocks, uint32_t* checksum, cudaStream_t stream, int repeats) {
    unsigned long long* window = nullptr;
    if (cudaMalloc(&window, 2 * sizeof(unsigned long long)) != cudaSuccess)
        calibration_failed("cudaMalloc failed");
    const BatchKernelArgs args = spin_only(checksum);
    std::vector<double> us;
    const cudaError_t status = take_timings(repeats, us, [&](std::vector<double>& out) {
        unsigned long long host[2] = {~0ull, 0};
        cudaError_t status = cudaMemcpyAsync(window, host, sizeof(host), cudaMemcpyHostToDevice, stream);
        if (status == cudaSuccess) status = launch(args, 0, blocks, stream, window);
        if (status == cudaSuccess)
            status = cudaMemcpyAsync(host, window, sizeof(host), cudaMemcpyDeviceToHost, stream);
        if (status == cudaSuccess) status = cudaStreamSynchronize(stream);
        if (status == cudaSuccess && host[1] >= host[0])
            out.push_back(static_cast<double>(host[1] - host[0]) * 1e-3);
        return status;
    });
    cudaFree(window);
    return median_or_fail(status, us);
}

}  // namespace

KernelTiming calibrate_batch_kernel(cudaStream_t stream, int sm_count, uint32_t* checksum) {
    KernelTiming timing;
    timing.blocks = std::max(1, sm_count) * kBlocksPerSm;
    constexpr long long kLong = 400'000;                   // about 200 us at Hopper's clocks
    time_spin(kLong, timing.blocks, checksum, stream, 3);  // warm up: clocks ramp, the module loads
    const double short_us = time_spin(0, timing.blocks, checksum, stream, 9);
    const double long_us = time_spin(kLong, timing.blocks, checksum, stream, 5);
    timing.fixed_us = time_fixed_in_kernel(timing.blocks, checksum, stream, 9);
    timing.cycles_per_us = static_cast<double>(kLong) / std::max(1.0, long_us - short_us);
    return timing;
}

cudaError_t launch_batch_kernel(const BatchKernelArgs& args, const KernelTiming& timing,
                                cudaStream_t stream) {
    const double spin_us = std::max(0.0, args.duration_us - timing.fixed_us);
    return launch(args, static_cast<long long>(spin_us * timing.cycles_per_us), timing.blocks, stream);
}

}  // namespace pinscope::cuda
