#include "core/model/host_rates.h"

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <sys/mman.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <fmt/format.h>

#include "core/device/median.h"
#include "core/device/page_aligned.h"
#include "core/device/sim/pageable_staging.h"
#include "core/model/host_thread_rates.h"
#include "core/model/written_ahead.h"
#include "core/pipeline/dataset.h"
#include "core/pipeline/session_parts.h"
#include "core/trace/clock.h"
#include "core/units/units.h"

namespace pinscope {
namespace {

// The median time of `work` in ns, over enough repetitions to move about `budget_bytes` (at least 3),
// with `prepare` run untimed before each. Before them `work` runs untimed until it has moved about
// `warm_up_bytes` (at least once): first touch and caches, as a pipeline's pooled buffers are warm.
double median_ns(double bytes, const std::function<void()>& work, const std::function<void()>& prepare = {},
                 double budget_bytes = 48e6, double warm_up_bytes = 0) {
    const int reps = std::clamp(static_cast<int>(budget_bytes / std::max(bytes, 1.0)), 3, 64);
    const int warm_ups = std::clamp(static_cast<int>(warm_up_bytes / std::max(bytes, 1.0)), 1, 512);
    std::vector<double> times;
    work();
    for (int w = 1; w < warm_ups; ++w) {
        if (prepare) prepare();
        work();
    }
    for (int r = 0; r < reps; ++r) {
        if (prepare) prepare();
        const TimeNs start = now_ns();
        work();
        times.push_back(static_cast<double>(now_ns() - start));
    }
    std::nth_element(times.begin(), times.begin() + reps / 2, times.end());
    return std::max(times[reps / 2], 1.0);
}

PipelineConfig image_config(int64_t sample_side, int64_t batch_size) {
    PipelineConfig config;
    config.sample_shape.dims = {1, sample_side, sample_side};
    config.batch_size = static_cast<int>(batch_size);
    return config;
}

// Buffers for the convert measurements, made once per measure_host_rates(): four of the largest batch
// (or sample) measured, faulted in once. Four pools of four fresh buffers per curve point cost 1.2 s of
// page faults a measurement on this project's VM.
struct ConvertBuffers {
    static constexpr size_t kCount = 4;
    std::vector<PageAlignedBytes> buffers;
    ConvertBuffers() {
        const double largest = std::max(ByteRateCurve::size_at(ByteRateCurve::kPoints - 1), 256.0 * 256 * 4);
        buffers.assign(kCount, PageAlignedBytes(static_cast<size_t>(largest)));
    }
};

// Converting a batch of `bytes` (output in `dtype`) with samples of `sample_side`^2 elements each, into
// `buffers` of the given ones in turn. Workers fill the pool's buffers in turn: filling one buffer again
// and again keeps it in the cache, and on this project's VM 3 workers writing 6.4 MiB batches with plain
// stores straight into pinned buffers ran at 40% of what that predicted. Inline loading reuses one.
// Each batch reads the samples after the last one's, as a pipeline's do: each sample is its own window
// of the dataset's pixel pool, and reading samples 0..batch-1 every time kept their pixels in this core's
// cache. On this project's VM 32 samples of 3x32x32 took 21 us that way and 32 to 35 us reading on (the
// run's fetch spans: 28 to 36 us), so small batches were predicted 50 to 70% too fast.
//
// Streamed batches (writes_around_the_cache) are timed after 256 MB of warm-up. Their rate does not hang
// on the cache, but it climbs over the first passes all the same, and three batches after one warm-up
// (what 48 MB buys at 16 MiB) caught the climb: on this project's VM 16.4 GB/s at 16 MiB against 19.6
// after the warm-up (a run's 2 workers converting 19 MiB batches straight into pinned buffers: 20.4
// each), on an H200 machine's host 10-14 against 13-18, and direct configs there were predicted 22-36%
// slow. Plain stores keep their short measurement: their steady rate hangs on how much of the pool stays
// in the cache, which four buffers do not tell (docs/predict.md: a pool-size curve helped the sets it was
// tuned on and lost on the next).
double convert_gbps(ConvertBuffers& into, double bytes, int64_t sample_side, double per_sample_ns,
                    TransferDtype dtype, size_t buffers) {
    constexpr double kStreamedWarmUp = 256e6;
    const int64_t sample_bytes = sample_side * sample_side * element_bytes(dtype);
    const int64_t batch = std::max<int64_t>(1, static_cast<int64_t>(bytes) / sample_bytes);
    PipelineConfig config = image_config(sample_side, batch);
    config.transfer_dtype = dtype;
    const double warm_up_bytes = writes_around_the_cache(config) ? kStreamedWarmUp : 0;
    const std::unique_ptr<Dataset> dataset = make_dataset(config);
    const double out_bytes = static_cast<double>(batch * sample_bytes);
    size_t turn = 0;
    int64_t next_sample = 0;
    const std::atomic<bool> stop{false};
    const double ns = median_ns(
        out_bytes,
        [&] {
            std::byte* out = into.buffers[turn % buffers].data();
            for (int64_t k = 0; k < batch; ++k) dataset->fetch(next_sample++, out + k * sample_bytes, stop);
        },
        [&] { ++turn; }, 48e6, warm_up_bytes);
    return out_bytes / std::max(ns - per_sample_ns * static_cast<double>(batch), 1.0);
}

// A fetch call's own cost, on samples of 4x4 (read on through the pool, as convert_gbps does).
double per_sample_ns() {
    const PipelineConfig config = image_config(4, 256);
    const std::unique_ptr<Dataset> dataset = make_dataset(config);
    PageAlignedBytes out(static_cast<size_t>(config.batch_bytes()));
    const std::atomic<bool> stop{false};
    int64_t next_sample = 0;
    return median_ns(1e6,
                     [&] {
                         for (int k = 0; k < config.batch_size; ++k)
                             dataset->fetch(next_sample++, out.data() + k * 64, stop);
                     }) /
           config.batch_size;
}

// Fills `bytes` at `out` with streaming stores, around the cache, as a worker writes a batch of large
// samples (dataset.cpp's convert_plane).
void write_around_the_cache(std::byte* out, size_t bytes) {
#if defined(__SSE2__)
    const __m128i value = _mm_set1_epi8(2);
    size_t at = 0;
    for (; at + 16 <= bytes && reinterpret_cast<uintptr_t>(out + at) % 16 != 0; ++at) out[at] = std::byte{2};
    for (; at + 16 <= bytes; at += 16) _mm_stream_si128(reinterpret_cast<__m128i*>(out + at), value);
    _mm_sfence();
    std::memset(out + at, 2, bytes - at);
#else
    std::memset(out, 2, bytes);
#endif
}

// Fills `buffer` as a worker writes a batch: with plain stores (samples under 256 KiB) what fits stays in
// the cache the cores share; with streaming stores (larger samples) it is all in memory. On this project's
// VM, whose cores share 480 MiB of cache, 9.6 MiB staged at 15 GB/s from the one and 10 from the other; a
// run staged the default-sized batches (3x224x224, streamed) at 9.6, and was predicted 13 to 32% too fast.
void write_as_a_worker(std::span<std::byte> buffer, bool streamed) {
    if (streamed)
        write_around_the_cache(buffer.data(), buffer.size());
    else
        std::memset(buffer.data(), 2, buffer.size());
}

// Buffers taken in turn, each written by another thread just before this one uses it: a batch a worker
// has just built, as a train loop's pageable staging meets it (not in this core's cache), written as the
// worker writes it.
class WrittenByAWorker {
  public:
    WrittenByAWorker(size_t count, size_t bytes, bool streamed)
        : buffers_(count, PageAlignedBytes(bytes)), streamed_(streamed) {}
    // The next buffer, written by another thread.
    void next() {
        ++turn_;
        PageAlignedBytes& buffer = current();
        std::thread([&buffer, streamed = streamed_] { write_as_a_worker(buffer, streamed); }).join();
    }
    PageAlignedBytes& current() { return buffers_[turn_ % buffers_.size()]; }

  private:
    std::vector<PageAlignedBytes> buffers_;
    bool streamed_;
    size_t turn_ = 0;
};

// The pin thread copies a batch a worker has just written on another core into the next buffer of the
// pinned pool: the source comes from memory, not this core's cache. Timed the same way, sources written
// ahead (WrittenAhead: a busy pin thread does not sleep between batches) and four destinations in turn: one
// buffer copied to one other again and again stays in the cache up to a few MiB, and on this project's VM
// a 4.6 MiB batch went 16 to 21 GB/s that way against 5 the pipeline's way (its pin spans: 920 us; the model
// had the default pin_memory config twice as fast as it ran).
double memcpy_gbps(double bytes, bool streamed) {
    const size_t size = static_cast<size_t>(bytes);
    WrittenAhead from(
        size, [streamed](std::span<std::byte> buffer, size_t) { write_as_a_worker(buffer, streamed); });
    std::vector<PageAlignedBytes> to(4, PageAlignedBytes(size, std::byte{1}));
    size_t turn = 0;
    auto copy = [&] { std::memcpy(to[turn++ % to.size()].data(), from.current().data(), size); };
    auto written_by_a_worker = [&] { from.next(); };
    return bytes / median_ns(bytes, copy, written_by_a_worker, std::max(48e6, 12 * bytes));
}

// Faulting in memory never touched before, a write to each page (the kernel zeroes it). Pool buffers pay
// it once, on their first batch, beside the batch's own writes: a pageable collate buffer as the convert
// writes into it, a pinned one when it is mapped (as both devices fault them in before the first write).
// On some virtual machines it runs at a fiftieth of a warm write.
double first_touch_gbps() {
    constexpr size_t kBytes = 8 << 20;
    std::vector<double> times;
    for (int r = 0; r < 3; ++r) {
        void* fresh = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (fresh == MAP_FAILED) return 0;
        const TimeNs start = now_ns();
        touch_each_page(fresh, kBytes);
        times.push_back(static_cast<double>(now_ns() - start));
        munmap(fresh, kBytes);
    }
    std::sort(times.begin(), times.end());
    return static_cast<double>(kBytes) / std::max(times[1], 1.0);
}

// The train loop stages a batch that a worker has just written on another core, so each staging here
// reads a buffer another thread has just written: staged warm from this thread's own cache, a batch of
// a MiB or so went twice as fast as the pipeline's on the H100 host (20 against 11 GB/s). Two buffers
// taken in turn, at least 12 times: with one buffer and 3 times at 16 MiB, the prediction of one
// pageable config moved from 178 to 252 samples/s between two processes on that host.
double staging_gbps(double bytes, bool streamed) {
    WrittenByAWorker hosts(2, static_cast<size_t>(bytes), streamed);
    auto stage = [&] {
        PageableStaging::stage(hosts.current().data(), hosts.current().size(), StagingDirection::to_device);
    };
    auto written_by_a_worker = [&] { hosts.next(); };
    return bytes / median_ns(bytes, stage, written_by_a_worker, std::max(48e6, 12 * bytes));
}

// A staging of 1 MiB after its thread left staging alone for `gap_ms`, from a batch another thread wrote
// just before the gap (as a worker's waits in the queue): the median of nine, in ns.
double staging_after_gap_ns(WrittenByAWorker& hosts, double gap_ms) {
    std::vector<double> times;
    for (int r = 0; r < 9; ++r) {
        hosts.next();
        if (gap_ms > 0)
            std::this_thread::sleep_for(std::chrono::microseconds(static_cast<int64_t>(gap_ms * 1e3)));
        const TimeNs start = now_ns();
        PageableStaging::stage(hosts.current().data(), hosts.current().size(), StagingDirection::to_device);
        times.push_back(static_cast<double>(now_ns() - start));
    }
    return median(std::move(times));
}

// StagingCooling, about 0.25 s: back to back, at its gaps, and cold. Cooling under a tenth of the warm
// time is none.
StagingCooling staging_cooling() {
    constexpr double kBytes = 1 << 20;
    WrittenByAWorker hosts(2, static_cast<size_t>(kBytes), false);
    const double warm = staging_after_gap_ns(hosts, 0);
    std::array<double, StagingCooling::kGapsMs.size()> at_gap{};
    for (size_t g = 0; g < at_gap.size(); ++g)
        at_gap[g] = staging_after_gap_ns(hosts, StagingCooling::kGapsMs[g]);
    const double cold = staging_after_gap_ns(hosts, StagingCooling::kColdGapMs);
    StagingCooling cooling;
    if (cold < 1.1 * warm) return cooling;
    cooling.cold_gbps = kBytes / cold;
    double so_far = 0;
    for (size_t g = 0; g < at_gap.size(); ++g)
        cooling.cooled[g] = so_far =
            std::max(so_far, std::clamp((at_gap[g] - warm) / (cold - warm), 0.0, 1.0));
    return cooling;
}

// Staging a D2H copy writes the pageable result buffer, chunk by chunk, from the bounce buffer: two
// buffers in turn, as the train loop's slots take turns.
double staging_from_device_gbps(double bytes) {
    std::vector<PageAlignedBytes> hosts(2, PageAlignedBytes(static_cast<size_t>(bytes)));
    size_t turn = 0;
    auto stage = [&] {
        turn = (turn + 1) % hosts.size();
        PageableStaging::stage(hosts[turn].data(), hosts[turn].size(), StagingDirection::to_host);
    };
    return bytes / median_ns(bytes, stage, {}, std::max(48e6, 12 * bytes));
}

// What each of `threads` threads doing `work` (on `bytes`) at once gets, in GB/s. They start together and
// repeat it for a window, and only repetitions that end within the window count, so each counted one ran
// while the others ran too. A fixed count of repetitions (two at 16 MiB) let one thread run part of its
// share alone: on this project's 2-core VM, two threads measured 1.1 to 1.9 threads' worth of bus from one
// process to the next, and the prediction of 2 workers converting 19 MiB batches swung with it from
// 26,000 to 48,000 samples/s where it ran at 25,400 to 28,300.
std::vector<double> concurrent_gbps_each(int threads, double bytes, const std::function<void(int)>& work) {
    // Several repetitions even of a 64 MiB batch at 5 GB/s, and 10 ms at least.
    const TimeNs window =
        std::clamp<TimeNs>(static_cast<TimeNs>(4 * bytes / 5.0), 10 * kNsPerMs, 60 * kNsPerMs);
    std::barrier start(threads);
    std::vector<double> gbps(static_cast<size_t>(threads));
    std::vector<std::thread> running;
    for (int t = 0; t < threads; ++t)
        running.emplace_back([&, t] {
            work(t);  // first touch
            start.arrive_and_wait();
            const TimeNs begin = now_ns(), end = begin + window;
            TimeNs last = begin, now = begin;
            int counted = 0;
            for (;;) {
                work(t);
                now = now_ns();
                if (now > end) break;
                ++counted;
                last = now;
            }
            // None within the window (one repetition outlasts it): the one that ran, alone at its end.
            gbps[static_cast<size_t>(t)] = counted > 0 ? bytes * counted / static_cast<double>(last - begin)
                                                       : bytes / static_cast<double>(now - begin);
        });
    for (std::thread& thread : running) thread.join();
    return gbps;
}

double concurrent_gbps(int threads, double bytes, const std::function<void(int)>& work) {
    double sum = 0;
    for (double g : concurrent_gbps_each(threads, bytes, work)) sum += g;
    return sum / threads;
}

struct BusThreads {
    double convert = 1, copy = 1, mixed = 1;
};

// How many threads' worth of the memory bus `threads` threads converting (streaming stores), copying, or
// half of them each (the odd one out converting) get at once when each works on batches of `bytes`: the
// sum of what each keeps of what one alone gets. Two rounds of one alone and then all together, so that a
// host whose rates drift within the measurement weighs on both.
BusThreads bus_threads(int threads, double bytes) {
    const int64_t batch = std::max<int64_t>(1, static_cast<int64_t>(bytes) / (256 * 256 * 4));
    const PipelineConfig config = image_config(256, batch);
    const std::unique_ptr<Dataset> dataset = make_dataset(config);
    const size_t size = static_cast<size_t>(config.batch_bytes());
    // The copy reads what the convert wrote: a third set of buffers per thread would cost a few hundred
    // MiB of page faults at 64 MiB batches.
    std::vector<PageAlignedBytes> out(static_cast<size_t>(threads), PageAlignedBytes(size)), to(out);
    const std::atomic<bool> stop{false};
    auto convert = [&](int t) {
        for (int64_t k = 0; k < batch; ++k)
            dataset->fetch(k, out[t].data() + k * config.sample_bytes(), stop);
    };
    auto copy = [&](int t) { std::memcpy(to[t].data(), out[t].data(), size); };
    auto mixed = [&](int t) { t % 2 == 0 ? convert(t) : copy(t); };
    const double batch_bytes = static_cast<double>(size);
    double convert_alone = 0, convert_together = 0, copy_alone = 0, copy_together = 0, mixed_kept = 0;
    for (int round = 0; round < 2; ++round) {
        const double convert_now = concurrent_gbps(1, batch_bytes, convert);
        const double copy_now = concurrent_gbps(1, batch_bytes, copy);
        convert_alone += convert_now;
        copy_alone += copy_now;
        convert_together += concurrent_gbps(threads, batch_bytes, convert);
        copy_together += concurrent_gbps(threads, batch_bytes, copy);
        const std::vector<double> each = concurrent_gbps_each(threads, batch_bytes, mixed);
        for (int t = 0; t < threads; ++t)
            mixed_kept +=
                std::clamp(each[static_cast<size_t>(t)] / (t % 2 == 0 ? convert_now : copy_now), 0.3, 1.0);
    }
    const double n = threads;
    return {n * std::clamp(convert_together / convert_alone, 0.3, 1.0),
            n * std::clamp(copy_together / copy_alone, 0.3, 1.0), mixed_kept / 2};
}

// Where `x` falls between the points of `grid`, on a log scale: the point below and the fraction of the
// way to the next (held at the ends).
template <size_t N, typename T>
std::pair<size_t, double> log_position(const std::array<T, N>& grid, double x) {
    if (x <= grid[0]) return {0, 0.0};
    for (size_t i = 1; i < N; ++i)
        if (x <= grid[i]) {
            const double lo = grid[i - 1], hi = grid[i];
            return {i - 1, std::log(x / lo) / std::log(hi / lo)};
        }
    return {N - 2, 1.0};
}

}  // namespace

double SleepOvershoot::interpolated(const Grid& us, int sleepers, double sleep_us) {
    const auto [row, fr] = log_position(kSleepers, std::max(sleepers, 1));
    // Named, not bound: clang 14 (the sanitizer build's compiler) does not yet let a lambda capture a
    // structured binding.
    const std::pair<size_t, double> column = log_position(kSleepUs, sleep_us);
    const size_t col = column.first;
    const double fc = column.second;
    auto along = [&](size_t r) { return us[r][col] + fc * (us[r][col + 1] - us[r][col]); };
    return along(row) + fr * (along(row + 1) - along(row));
}

double StagingCooling::cooled_after(double idle_ms) const {
    if (cold_gbps <= 0 || idle_ms <= 0) return 0;
    double from_ms = 0, from = 0;
    for (size_t g = 0; g <= kGapsMs.size(); ++g) {
        const double to_ms = g < kGapsMs.size() ? kGapsMs[g] : kColdGapMs;
        const double to = g < kGapsMs.size() ? cooled[g] : 1;
        if (idle_ms <= to_ms) return from + (to - from) * (idle_ms - from_ms) / (to_ms - from_ms);
        from_ms = to_ms, from = to;
    }
    return 1;
}

double HostRates::staging_cooled_ns(double bytes, double warm_ns, double source_idle_ns,
                                    double bounce_idle_ns) const {
    if (bytes <= 0) return 0;
    const double cooled = 0.5 * (staging_cooling.cooled_after(source_idle_ns / 1e6) +
                                 staging_cooling.cooled_after(bounce_idle_ns / 1e6));
    if (cooled <= 0) return 0;
    const double cooled_bytes = std::min(bytes, kCooledBytes);
    return cooled * std::max(0.0, cooled_bytes / staging_cooling.cold_gbps - warm_ns * cooled_bytes / bytes);
}

double ByteRateCurve::at(double bytes) const {
    static const std::array<double, kPoints> sizes = [] {
        std::array<double, kPoints> at{};
        for (int i = 0; i < kPoints; ++i) at[static_cast<size_t>(i)] = size_at(i);
        return at;
    }();
    const auto [i, f] = log_position(sizes, bytes);
    return gbps[i] + f * (gbps[i + 1] - gbps[i]);
}

namespace {

// The convert curves, in the order measured: samples of 128^2 float32 elements (64 KiB) are written with
// plain stores, of 256^2 (256 KiB) with streaming ones, as are uint8 samples of 512^2 (dataset.cpp); four
// buffers in turn, as workers fill a pool, or one reused, as inline loading does.
struct ConvertCurve {
    ByteRateCurve HostRates::*curve;
    int64_t sample_side;
    TransferDtype dtype;
    size_t buffers;
};
constexpr ConvertCurve kConvertCurves[] = {
    {&HostRates::convert_plain, 128, TransferDtype::float32, ConvertBuffers::kCount},
    {&HostRates::convert_plain_reused, 128, TransferDtype::float32, 1},
    {&HostRates::convert_streaming, 256, TransferDtype::float32, ConvertBuffers::kCount},
    {&HostRates::convert_uint8, 256, TransferDtype::uint8, ConvertBuffers::kCount},
    {&HostRates::convert_half, 256, TransferDtype::float16, ConvertBuffers::kCount},
    {&HostRates::convert_streaming_reused, 256, TransferDtype::float32, 1},
    {&HostRates::convert_uint8_reused, 256, TransferDtype::uint8, 1},
    {&HostRates::convert_half_reused, 256, TransferDtype::float16, 1},
    {&HostRates::convert_bfloat16, 256, TransferDtype::bfloat16, ConvertBuffers::kCount},
    {&HostRates::convert_bfloat16_reused, 256, TransferDtype::bfloat16, 1},
    {&HostRates::convert_uint8_streaming, 512, TransferDtype::uint8, ConvertBuffers::kCount},  // 256 KiB
    {&HostRates::convert_uint8_streaming_reused, 512, TransferDtype::uint8, 1},
};

}  // namespace

int cores_of_this_host() {
    return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

HostRates measure_host_rates() {
    HostRates rates;
    rates.cores = cores_of_this_host();
    rates.per_sample_ns = per_sample_ns();
    ConvertBuffers into;
    const int bus_measured_by = HostRates::bus_threads_measured(rates.cores);
    for (int i = 0; i < ByteRateCurve::kPoints; ++i) {
        const double bytes = ByteRateCurve::size_at(i);
        const double sample_ns = rates.per_sample_ns;
        for (const ConvertCurve& c : kConvertCurves)
            (rates.*c.curve).gbps[i] =
                convert_gbps(into, bytes, c.sample_side, sample_ns, c.dtype, c.buffers);
        rates.memcpy_rate.gbps[i] = memcpy_gbps(bytes, false);
        rates.memcpy_from_streamed.gbps[i] = memcpy_gbps(bytes, true);
        rates.staging_rate.gbps[i] = staging_gbps(bytes, false);
        rates.staging_from_streamed.gbps[i] = staging_gbps(bytes, true);
        rates.staging_from_device_rate.gbps[i] = staging_from_device_gbps(bytes);
        const BusThreads bus = bus_measured_by > 1 ? bus_threads(bus_measured_by, bytes) : BusThreads{};
        rates.convert_bus_threads.gbps[i] = bus.convert;
        rates.memcpy_bus_threads.gbps[i] = bus.copy;
        rates.mixed_bus_threads.gbps[i] = bus.mixed;
    }
    rates.device_call_us = measure::device_call_us();
    rates.handoff_us = measure::handoff_us();
    const measure::WakeAcrossCores across = measure::wake_across_cores(rates.handoff_us);
    rates.wake_us = across.wake_us;
    rates.woken_us = across.woken_us;
    rates.wake_latency_us = across.latency_us;
    rates.gpu_wake_us = measure::gpu_wake_us();
    for (size_t i = 0; i < SleepOvershoot::kSleepers.size(); ++i)
        for (size_t j = 0; j < SleepOvershoot::kSleepUs.size(); ++j) {
            const measure::SleepLateness late =
                measure::sleep_overshoot(SleepOvershoot::kSleepers[i], SleepOvershoot::kSleepUs[j]);
            rates.sleep_overshoot.us[i][j] = late.late_us;
            rates.sleep_overshoot.cpu_us[i][j] = late.cpu_us;
        }
    rates.sleep_overshoot.beside_work_us = measure::sleep_cost_beside_work_us(rates.cores);
    rates.first_touch_gbps = first_touch_gbps();
    rates.staging_cooling = staging_cooling();
    rates.cores_available = measure::cores_available(rates.cores);
    return rates;
}

HostRates median_of(std::span<const HostRates> measurements) {
    if (measurements.empty()) return {};
    std::vector<std::vector<double>> values;  // [figure][measurement]
    for (const HostRates& m : measurements) {
        size_t figure = 0;
        for_each_figure(m, [&](double value) {
            if (figure == values.size()) values.emplace_back();
            values[figure++].push_back(value);
        });
    }
    HostRates result = measurements.front();
    size_t figure = 0;
    for_each_figure(result, [&](double& value) { value = median(std::move(values[figure++])); });
    return result;
}

std::string describe(const HostRates& host) {
    const std::string busy = host.usable_cores() < 0.95 * host.cores
                                 ? fmt::format(" ({:.1f} available)", host.usable_cores())
                                 : "";
    const StagingCooling& c = host.staging_cooling;
    const std::string cooling =
        c.cold_gbps > 0
            ? fmt::format(
                  "staging {} at 1 MiB once its caches cool ({:.0f}/{:.0f}/{:.0f}% of the "
                  "way there 1/2/4 ms after the last)",
                  format_gbps(c.cold_gbps), 100 * c.cooled[0], 100 * c.cooled[1], 100 * c.cooled[2])
            : "staging as fast after a pause as back to back";
    return fmt::format(
        "{} cores{}, convert {}, memcpy {}, memory bus {:.1f} converting threads' worth at 16 MiB, first "
        "touch {}, a 200 us sleep ends {:.0f} us late ({:.0f} with 16 at once; {:.0f} us of it on a core), "
        "hand-off {:.0f} us (waking another core's thread {:.0f} us, {:.0f} + {:.0f} us of CPU), GPU wake-up "
        "{:.0f} us, {}",
        host.cores, busy, format_gbps(host.convert_plain.at(1 << 20)),
        format_gbps(host.memcpy_rate.at(1 << 20)), host.convert_bus_threads.at(16 << 20),
        format_gbps(host.first_touch_gbps), host.sleep_overshoot.at(1, 200), host.sleep_overshoot.at(16, 200),
        host.sleep_overshoot.cpu_at(1, 200), host.handoff_us, host.wake_latency_us, host.wake_us,
        host.woken_us, host.gpu_wake_us, cooling);
}

namespace {

std::atomic<bool> host_rates_measured{false};

std::mutex source_mutex;
HostRatesSource& host_rates_source() {
    static HostRatesSource source{.get = measure_host_rates, .would_measure = [] { return true; }};
    return source;
}

}  // namespace

void set_this_host_rates_source(HostRatesSource source) {
    const std::lock_guard lock(source_mutex);
    host_rates_source() = std::move(source);
}

const HostRates& this_host_rates() {
    static const HostRates rates = [] {
        std::function<HostRates()> get;
        {
            const std::lock_guard lock(source_mutex);
            get = host_rates_source().get;
        }
        HostRates figures = get();
        host_rates_measured = true;
        return figures;
    }();
    return rates;
}

bool this_host_rates_measured() {
    return host_rates_measured;
}

bool this_host_rates_would_measure() {
    if (host_rates_measured) return false;
    std::function<bool()> would_measure;
    {
        const std::lock_guard lock(source_mutex);
        would_measure = host_rates_source().would_measure;
    }
    return would_measure();
}

}  // namespace pinscope
