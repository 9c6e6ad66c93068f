// probe_copies(): cudaMemcpyAsync bandwidths timed with CUDA events, each the median of several copies
// after one to warm up, on buffers allocated once at the largest size.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/device/copy_probe.h"
#include "core/device/cuda/cuda_check.h"
#include "core/device/cuda/cuda_device.h"
#include "core/device/cuda/normalize_kernel.h"
#include "core/device/cuda/pcie_link.h"
#include "core/device/cuda/pinned_memory.h"
#include "core/device/device.h"
#include "core/device/device_call_cost.h"
#include "core/device/median.h"
#include "core/device/naive_copy.h"
#include "core/device/sim/pageable_staging.h"
#include "core/trace/trace.h"

namespace pinscope {
namespace {

using cuda::check;
constexpr size_t MiB = 1 << 20;
constexpr size_t kLargest = 256 * MiB;
// The host's write rates the H2D share is measured at, GB/s between all writers; 0 is flat out.
constexpr double kHostWriteRatesGBps[] = {20, 35, 50, 65, 80, 100, 0};
constexpr size_t kWriterBuffer = 64 * MiB;  // each writing thread's own memory

// Owners of the probe's CUDA resources.
struct Pinned {
    void* data = nullptr;
    explicit Pinned(size_t bytes) {
        check(cudaHostAlloc(&data, bytes, cudaHostAllocDefault), "cudaHostAlloc");
        std::memset(data, 1, bytes);
    }
    ~Pinned() { cuda::check_quietly(cudaFreeHost(data), "cudaFreeHost"); }
};
struct Pageable {
    void* data = nullptr;
    explicit Pageable(size_t bytes) : data(std::aligned_alloc(4096, bytes)) {
        if (!data) throw DeviceError("cannot allocate host memory for the probe");
        std::memset(data, 1, bytes);  // resident, as a collated batch would be
    }
    ~Pageable() { std::free(data); }
};
struct OnDevice {
    void* data = nullptr;
    explicit OnDevice(size_t bytes) { check(cudaMalloc(&data, bytes), "cudaMalloc"); }
    ~OnDevice() { cuda::check_quietly(cudaFree(data), "cudaFree"); }
};
struct StreamOwner {
    cudaStream_t stream = nullptr;
    StreamOwner() {
        check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    }
    ~StreamOwner() { cuda::check_quietly(cudaStreamDestroy(stream), "cudaStreamDestroy"); }
};
struct EventOwner {
    cudaEvent_t event = nullptr;
    EventOwner() { check(cudaEventCreate(&event), "cudaEventCreate"); }
    ~EventOwner() { cuda::check_quietly(cudaEventDestroy(event), "cudaEventDestroy"); }
};

double elapsed_s(cudaEvent_t from, cudaEvent_t to) {
    float ms = 0;
    check(cudaEventElapsedTime(&ms, from, to), "cudaEventElapsedTime");
    return ms * 1e-3;
}

// Enough repeats for about 50 ms of copying at pinned speed, at least 5: pageable copies vary from one
// to the next by a tenth or more.
int repeats_for(size_t bytes) {
    return static_cast<int>(std::clamp<size_t>(2'500 * MiB / 50 / bytes, 5, 25));
}

// A worker thread collating a batch: the bytes are written by another core just before the copy.
void write_from_another_thread(std::byte* data, size_t bytes, int value) {
    std::thread writer([=] { std::memset(data, value, bytes); });
    writer.join();
}

// Each copy uses the next `bytes` of the 256 MiB buffers, round and round. A pageable source is first
// written by another thread, as a worker collates a batch just before the train loop copies it: the
// driver's staging memcpy then finds in the CPU's caches what the pipeline's finds. That matters for
// small batches: with sources untouched for 256 MiB of copying, the simulated GPU ran the CIFAR-like
// workload's pageable 768 KiB copies 12 to 25% slower than the H100 host did.
double time_copy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, cudaStream_t stream,
                 bool fresh_source) {
    EventOwner begin, end;
    std::vector<double> gbps;
    constexpr int kWarmUp = 2;  // the driver grows its staging buffers on the first pageable copies
    for (int r = 0; r < kWarmUp + repeats_for(bytes); ++r) {
        const size_t offset = static_cast<size_t>(r) * bytes % kLargest;
        if (fresh_source)
            write_from_another_thread(const_cast<std::byte*>(static_cast<const std::byte*>(src)) + offset,
                                      bytes, r);
        check(cudaEventRecord(begin.event, stream), "cudaEventRecord");
        check(cudaMemcpyAsync(static_cast<std::byte*>(dst) + offset,
                              static_cast<const std::byte*>(src) + offset, bytes, kind, stream),
              "cudaMemcpyAsync");
        check(cudaEventRecord(end.event, stream), "cudaEventRecord");
        check(cudaEventSynchronize(end.event), "cudaEventSynchronize");
        if (r >= kWarmUp)
            gbps.push_back(static_cast<double>(bytes) / elapsed_s(begin.event, end.event) * 1e-9);
    }
    return median(gbps);
}

// Threads writing memory as a loader's workers collate: streaming stores (dataset.cpp's convert_plane),
// one thread over each of `buffers` (kWriterBuffer bytes each, the caller's, made once for every
// measurement), round and round, until destroyed. `written()` counts their bytes.
// With `total_gbps` above 0 the threads hold that rate between them, each spinning when ahead of its
// share: workers converting samples write at the pace their arithmetic allows, not flat out.
class HostWriters {
  public:
    HostWriters(const std::vector<std::unique_ptr<Pageable>>& buffers, double total_gbps) {
        const double per_thread_bytes_per_ns = total_gbps / static_cast<double>(buffers.size());  // bytes/ns
        for (const std::unique_ptr<Pageable>& buffer : buffers)
            threads_.emplace_back([this, data = buffer->data, per_thread_bytes_per_ns] {
                write(data, per_thread_bytes_per_ns);
            });
    }
    ~HostWriters() {
        stop_.store(true, std::memory_order_relaxed);
        for (std::thread& thread : threads_) thread.join();
    }
    uint64_t written() const { return written_.load(std::memory_order_relaxed); }

  private:
    // Paced in chunks of 64 KiB, spinning between them: 1 MiB chunks and sleeps put the threads' writes in
    // bursts at the flat-out rate, together, and the copies met the cliff of a far higher rate.
    static constexpr size_t kChunk = 64 * 1024;
    void write(void* data, double bytes_per_ns) {
        auto* bytes = static_cast<std::byte*>(data);
        const TimeNs start = now_ns();
        uint64_t mine = 0;
        for (size_t offset = 0, round = 0; !stop_.load(std::memory_order_relaxed);
             offset = (offset + kChunk) % kWriterBuffer) {
            fill_streaming(bytes + offset, kChunk, static_cast<int>(++round));
            written_.fetch_add(kChunk, std::memory_order_relaxed);
            mine += kChunk;
            if (bytes_per_ns <= 0) continue;
            const auto due = start + static_cast<TimeNs>(static_cast<double>(mine) / bytes_per_ns);
            while (!stop_.load(std::memory_order_relaxed) && now_ns() < due) pause();
        }
    }
    static void pause() {
#if defined(__SSE2__)
        _mm_pause();
#else
        std::this_thread::yield();
#endif
    }
    static void fill_streaming(std::byte* data, size_t bytes, int value) {
#if defined(__SSE2__)
        const __m128i v = _mm_set1_epi8(static_cast<char>(value));
        for (size_t i = 0; i < bytes; i += 16) _mm_stream_si128(reinterpret_cast<__m128i*>(data + i), v);
        _mm_sfence();
#else
        std::memset(data, value, bytes);
#endif
    }
    std::vector<std::thread> threads_;
    std::atomic<bool> stop_{false};
    std::atomic<uint64_t> written_{0};
};

// What share of the rate `measure` returns (GB/s) it keeps while a host thread for each of `buffers` writes
// memory, at `total_gbps` between them (0: as fast as they can), against the idle rate measured just before
// (the host's state drifts), and the writers' rate while it ran: the median of three such pairs.
template <class Measure>
Calibration::HostWriteShare share_under_writes(const std::vector<std::unique_ptr<Pageable>>& buffers,
                                               double total_gbps, Measure&& measure) {
    std::vector<double> shares, write_gbps;
    for (int r = 0; r < 3; ++r) {
        const double idle = measure();
        HostWriters writers(buffers, total_gbps);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));  // every writer running
        const uint64_t before = writers.written();
        const TimeNs start = now_ns();
        const double loaded = measure();
        write_gbps.push_back(static_cast<double>(writers.written() - before) /
                             static_cast<double>(std::max<TimeNs>(1, now_ns() - start)));
        shares.push_back(std::min(1.0, loaded / idle));  // above 1 is the idle figure's noise
    }
    return {median(write_gbps), median(shares)};
}

// The normalize kernel (transfer_dtype uint8) on `pixels` pixels of 3x224x224 samples: seconds per
// launch, the median of 15 after two to warm up. `device` holds at least 5 bytes per pixel.
double time_normalize_s(void* device, size_t pixels, int sm_count, cudaStream_t stream) {
    EventOwner begin, end;
    cuda::NormalizeArgs args;
    args.input = static_cast<const uint8_t*>(device);
    args.output = reinterpret_cast<float*>(static_cast<std::byte*>(device) + (pixels + 255) / 256 * 256);
    args.pixels = pixels;
    args.sample_elements = 3 * 224 * 224;
    args.channel_elements = 224 * 224;
    std::vector<double> seconds;
    for (int r = 0; r < 17; ++r) {
        check(cudaEventRecord(begin.event, stream), "cudaEventRecord");
        check(cuda::launch_normalize_kernel(args, sm_count, stream), "launching the normalize kernel");
        check(cudaEventRecord(end.event, stream), "cudaEventRecord");
        check(cudaEventSynchronize(end.event), "cudaEventSynchronize");
        if (r >= 2) seconds.push_back(elapsed_s(begin.event, end.event));
    }
    return median(seconds);
}

// What a small pageable copy costs the calling thread: the call, the driver's staging and the wait
// for the stream, as a blocking copy does. The median of many.
double time_small_pageable_us(void* device, void* host, cudaStream_t stream) {
    constexpr size_t kBytes = 4096;
    std::vector<double> us;
    for (int r = 0; r <= 60; ++r) {
        const bool h2d = r % 2 == 0;
        const TimeNs start = now_ns();
        check(cudaMemcpyAsync(h2d ? device : host, h2d ? host : device, kBytes,
                              h2d ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost, stream),
              "cudaMemcpyAsync");
        check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
        if (r > 1) us.push_back(static_cast<double>(now_ns() - start) * 1e-3);  // the first two warm up
    }
    return median(us);
}

// A pageable H2D copy's staging by the driver (from the call until it returns: CUDA returns once the
// bytes are in its bounce buffers) against the simulated GPU's own (PageableStaging: one thread's memcpy
// through a bounce buffer), each of a source another thread has just written, at sizes up to one chunk.
// The two alternate, so that a busy spell of the host falls on both, and each is the median of 60.
std::vector<Calibration::StagingPoint> time_pageable_staging(void* device, std::byte* host,
                                                             cudaStream_t stream) {
    constexpr size_t kSizes[] = {4096, 64 * 1024, 256 * 1024, 1 * MiB, PageableStaging::kChunkBytes};
    constexpr int kWarmUp = 3, kRepeats = 60;
    std::vector<Calibration::StagingPoint> points;
    for (size_t bytes : kSizes) {
        std::vector<double> driver_us, memcpy_us;
        for (int r = 0; r < kWarmUp + kRepeats; ++r) {
            std::byte* source = host + static_cast<size_t>(r) * bytes % (kLargest - bytes);
            write_from_another_thread(source, bytes, r);
            const TimeNs call = now_ns();
            check(cudaMemcpyAsync(device, source, bytes, cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync");
            const TimeNs returned = now_ns();
            check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
            write_from_another_thread(source, bytes, r + 1);
            const TimeNs own_start = now_ns();
            PageableStaging::stage(source, bytes, StagingDirection::to_device);
            const TimeNs own_end = now_ns();
            if (r < kWarmUp) continue;
            driver_us.push_back(static_cast<double>(returned - call) * 1e-3);
            memcpy_us.push_back(static_cast<double>(own_end - own_start) * 1e-3);
        }
        points.push_back({static_cast<double>(bytes), median(driver_us), median(memcpy_us)});
    }
    return points;
}

// One H2D and one D2H of `bytes` each at once on two streams: both directions' bytes over the time until
// both end. `rounds` timed after one to warm up; their median.
double time_bidirectional(void* up, void* down, void* to, void* from, size_t bytes = kLargest,
                          int rounds = 3) {
    StreamOwner a, b;
    EventOwner begin, end_a, end_b;
    std::vector<double> gbps;
    for (int r = 0; r <= rounds; ++r) {
        check(cudaEventRecord(begin.event, a.stream), "cudaEventRecord");
        check(cudaStreamWaitEvent(b.stream, begin.event, 0), "cudaStreamWaitEvent");
        check(cudaMemcpyAsync(to, up, bytes, cudaMemcpyHostToDevice, a.stream), "cudaMemcpyAsync");
        check(cudaMemcpyAsync(down, from, bytes, cudaMemcpyDeviceToHost, b.stream), "cudaMemcpyAsync");
        check(cudaEventRecord(end_a.event, a.stream), "cudaEventRecord");
        check(cudaEventRecord(end_b.event, b.stream), "cudaEventRecord");
        check(cudaEventSynchronize(end_a.event), "cudaEventSynchronize");
        check(cudaEventSynchronize(end_b.event), "cudaEventSynchronize");
        const double seconds =
            std::max(elapsed_s(begin.event, end_a.event), elapsed_s(begin.event, end_b.event));
        if (r > 0) gbps.push_back(2.0 * static_cast<double>(bytes) / seconds * 1e-9);
    }
    return median(gbps);
}

double time_host_memcpy(Pageable& dst, const Pageable& src) {
    constexpr size_t kBytes = 64 * MiB;
    std::vector<double> gbps;
    for (int r = 0; r <= 5; ++r) {
        const TimeNs start = now_ns();
        std::memcpy(dst.data, src.data, kBytes);
        const TimeNs end = now_ns();
        if (r > 0) gbps.push_back(static_cast<double>(kBytes) / static_cast<double>(end - start));
    }
    return median(gbps);
}

// Seconds to pin 256 MiB (the median of three fresh allocations), and the buffer of the last one.
double time_pinning(cuda::PinMethod method) {
    std::vector<double> seconds;
    for (int r = 0; r < 3; ++r) {
        const TimeNs start = now_ns();
        void* data = cuda::pin_allocate(kLargest, method);
        seconds.push_back(ns_to_s(now_ns() - start));
        cuda::pin_free(data, kLargest, method);
    }
    return median(seconds);
}

double time_huge_page_copy(void* device, cudaStream_t stream) {
    void* host = cuda::pin_allocate(kLargest, cuda::PinMethod::huge_pages);
    std::memset(host, 1, kLargest);
    const double gbps = time_copy(device, host, kLargest, cudaMemcpyHostToDevice, stream, false);
    cuda::pin_free(host, kLargest, cuda::PinMethod::huge_pages);
    return gbps;
}

// A fresh process's first CUDA call starts the driver and makes the context. This process has started
// the driver already (counting the GPUs), so where pinscope's own binary can be run, three fresh
// processes time it (the naive benchmark's child, copying 4 KiB) and the median counts; else what this
// process's first context took.
double fresh_context_s(int ordinal, double in_this_process_s) {
    if (fresh_process_program().empty()) return in_this_process_s;
    std::vector<double> seconds;
    NaiveCopyRequest request;
    request.bytes = 4096;
    request.gpu = ordinal;
    try {
        for (int i = 0; i < 3; ++i)
            for (const NaiveCopyStep& step : run_naive_copy_in_fresh_process(request))
                if (step.kind == SpanKind::startup && step.what.starts_with("CUDA context"))
                    seconds.push_back(ns_to_s(step.end - step.start));
    } catch (const DeviceError&) {
        return in_this_process_s;
    }
    return seconds.empty() ? in_this_process_s : median(seconds);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string today() {
    const std::time_t now = std::time(nullptr);
    char text[16] = {};
    std::strftime(text, sizeof(text), "%Y-%m-%d", std::localtime(&now));
    return text;
}

}  // namespace

CopyProbeResult probe_copies(int ordinal) {
    // Start-up first, before anything else in this process touches CUDA: the driver's start and the
    // context, as the first CUDA call of a fresh process pays them (a naive benchmark's first copy).
    const auto started = std::chrono::steady_clock::now();
    std::string why;
    const int count = cuda_usable_device_count(&why);
    if (count == 0) throw DeviceError("no usable CUDA GPU: " + why + ".");
    if (ordinal < 0 || ordinal >= count)
        throw DeviceError(fmt::format("there is no GPU {}; this machine has {}.", ordinal, count));
    check(cudaSetDevice(ordinal), "cudaSetDevice");
    check(cudaFree(nullptr), "cudaFree");  // creates the context
    const double context_create_s = seconds_since(started);
    cudaDeviceProp props{};
    check(cudaGetDeviceProperties(&props, ordinal), "cudaGetDeviceProperties");
    char bus_id[32] = {};
    cudaDeviceGetPCIBusId(bus_id, sizeof(bus_id), ordinal);
    const std::string link = cuda::pcie_link(bus_id).to_string();
    int runtime = 0, driver = 0;
    cudaRuntimeGetVersion(&runtime);
    cudaDriverGetVersion(&driver);
    std::string release = cuda::driver_release();
    if (release.empty()) release = fmt::format("for CUDA {}.{}", driver / 1000, driver % 1000 / 10);

    CopyProbeResult result;
    result.name = link.empty() ? std::string(props.name) : fmt::format("{}, {}", props.name, link);
    result.measured_on =
        fmt::format("{}, driver {}, CUDA {}.{}, {} host cores, {}", result.name, release, runtime / 1000,
                    runtime % 1000 / 10, std::thread::hardware_concurrency(), today());
    result.copy_engines = props.asyncEngineCount;

    result.context_create_s = fresh_context_s(ordinal, context_create_s);
    Pinned pinned(kLargest), pinned_back(kLargest);
    Pageable pageable(kLargest), pageable_back(kLargest);
    {
        // The process's first cudaMalloc, of a batch's size (a naive benchmark's .to() makes one).
        const auto allocating = std::chrono::steady_clock::now();
        OnDevice first(16 * MiB);
        result.device_alloc_16MB_s = seconds_since(allocating);
    }
    OnDevice device(kLargest), device_back(kLargest);
    StreamOwner stream;
    // One size's bandwidth, one direction and memory kind.
    const auto measure = [&](CopyDirection direction, HostMemory memory, int mib) {
        void* host = memory == HostMemory::pinned ? pinned.data : pageable.data;
        const size_t bytes = static_cast<size_t>(mib) * MiB;
        const bool fresh = memory == HostMemory::pageable;  // only the driver's memcpy reads caches
        return direction == CopyDirection::h2d
                   ? time_copy(device.data, host, bytes, cudaMemcpyHostToDevice, stream.stream, fresh)
                   : time_copy(host, device.data, bytes, cudaMemcpyDeviceToHost, stream.stream, false);
    };
    // Both directions at once at three points of the probe, the best kept: one H100 host's probe read
    // 79.2 GB/s where others of its kind read 84 to 101 (a busy spell of the host), and a figure read low
    // flatters every run that is compared with it.
    const auto bidirectional = [&] {
        return time_bidirectional(pinned.data, pinned_back.data, device.data, device_back.data);
    };
    result.bidir_total_gbps = bidirectional();
    for (CopyDirection direction : {CopyDirection::h2d, CopyDirection::d2h})
        for (HostMemory memory : {HostMemory::pinned, HostMemory::pageable})
            for (int mib : kProbeSizesMiB)
                result.copies.push_back({direction, memory, mib, measure(direction, memory, mib)});
    // A pinned figure far below a smaller size's caught the host busy: measured twice more, the best kept.
    for (CopyMeasurement& m : result.copies)
        if (m.memory == HostMemory::pinned &&
            std::ranges::count(implausible_pinned_sizes(result, m.direction), m.mib))
            for (int again = 0; again < 2; ++again)
                m.gbps = std::max(m.gbps, measure(m.direction, m.memory, m.mib));
    result.bidir_total_gbps = std::max(result.bidir_total_gbps, bidirectional());
    {
        // The normalize kernel at 1 and 48 MiB of pixels (a 96 MiB float32 batch is 24 MiB of them):
        // t(n) = latency + n / rate, as copies are fitted.
        const double small = time_normalize_s(device.data, 1 * MiB, props.multiProcessorCount, stream.stream);
        const double large =
            time_normalize_s(device.data, 48 * MiB, props.multiProcessorCount, stream.stream);
        result.normalize_u8_gbps = 47.0 * MiB / std::max(large - small, 1e-9) * 1e-9;
        result.normalize_latency_us =
            std::max(0.0, small - 1.0 * MiB / (result.normalize_u8_gbps * 1e9)) * 1e6;
    }
    result.host_memcpy_gbps = time_host_memcpy(pageable_back, pageable);
    {
        // As a loader's workers write: many threads at a steady pace between them, up to the rate a
        // link-bound loader needs (what it sends) and past it, then flat out for the cliff's far side.
        const int writers = std::clamp(static_cast<int>(std::thread::hardware_concurrency()) - 2, 1, 12);
        std::vector<std::unique_ptr<Pageable>> buffers;
        for (int t = 0; t < writers; ++t) buffers.push_back(std::make_unique<Pageable>(kWriterBuffer));
        // A 64 MiB H2D copy, and one H2D and one D2H of 64 MiB at once: the pair loses far more to the
        // cores' writes than an H2D alone (one H200 host: 79% of its idle total at 38 GB/s of writes, where
        // an H2D alone kept 95%), and a loader sending results as large as its inputs runs there.
        constexpr size_t kBytes = 64 * MiB;
        for (double gbps : kHostWriteRatesGBps)
            result.h2d_under_host_writes.push_back(share_under_writes(buffers, gbps, [&] {
                return time_copy(device.data, pinned.data, kBytes, cudaMemcpyHostToDevice, stream.stream,
                                 false);
            }));
        for (double gbps : kHostWriteRatesGBps)
            result.bidir_under_host_writes.push_back(share_under_writes(buffers, gbps, [&] {
                return time_bidirectional(pinned.data, pinned_back.data, device.data, device_back.data,
                                          kBytes, 1);
            }));
    }
    result.bidir_total_gbps = std::max(result.bidir_total_gbps, bidirectional());
    result.pageable_copy_latency_us = time_small_pageable_us(device.data, pageable.data, stream.stream);
    result.pageable_h2d_staging =
        time_pageable_staging(device.data, static_cast<std::byte*>(pageable.data), stream.stream);
    result.pin_host_alloc_256MB_s = time_pinning(cuda::PinMethod::host_alloc);
    try {
        result.pin_huge_pages_256MB_s = time_pinning(cuda::PinMethod::huge_pages);
        result.h2d_huge_pages_256MB_gbps = time_huge_page_copy(device.data, stream.stream);
    } catch (const DeviceError&) {
        // No registration here: the CUDA device pins with cudaHostAlloc, and the file says nothing else.
    }
    {
        // Through the CUDA device itself, CUPTI on, as a run has it (device_call_cost.h says why).
        Trace trace;
        std::string tracing;
        const std::unique_ptr<Device> cuda_device =
            make_cuda_device(trace, CudaDeviceOptions{ordinal, /*cupti=*/true}, &tracing);
        result.host_call_us = mean_device_call_us(*cuda_device);
    }
    result.copy_latency_us = copy_latency_us(1, result.gbps(CopyDirection::h2d, HostMemory::pinned, 1), 16,
                                             result.gbps(CopyDirection::h2d, HostMemory::pinned, 16));
    return result;
}

}  // namespace pinscope
