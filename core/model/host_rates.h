#pragma once
// What this host's CPU does per second for each kind of work the pipeline runs for real: converting
// samples (the workers' collate), copying a batch into pinned memory (the pin thread), staging a pageable
// copy through the driver's bounce buffer (the train loop), a call into the simulated GPU, and handing a
// batch from one thread to another. The predictor (pipeline_model.h) runs on these figures; they are
// measured, not assumed, because the simulated GPU's runs are only as fast as the host that runs them.
#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <string>

namespace pinscope {

// GB/s (1e9 bytes/s) of one thread by working-set size, log-interpolated between measured sizes.
struct ByteRateCurve {
    static constexpr int kPoints = 6;  // 64 KiB, 256 KiB, ... 64 MiB
    static double size_at(int i) { return 65536.0 * static_cast<double>(1 << (2 * i)); }
    std::array<double, kPoints> gbps{};

    double at(double bytes) const;
    double ns_for(double bytes) const { return bytes / at(bytes); }
};

// How much later than asked a worker's io wait ends, on average, by how long it sleeps and how many
// threads sleep such waits at once. More sleepers queue their wake-ups for the cores; a longer sleep lets
// an idle core (or a virtual machine's vCPU) sink deeper, and waking it takes longer: on the H100 host a
// 100 us sleep ended 16 us late, the pipeline's 400 us ones about 45. Measured at 1, 4 and 16 sleepers
// of 50, 200 and 800 us, log-interpolated between (and held beyond).
//
// Part of that lateness is the sleeper's own CPU time: the system calls that arm the timer and switch the
// thread out and back in. On this project's 2-core VM (KVM) a sleep costs its thread 18 to 32 us of CPU
// (arming a timer leaves the guest), nearly all of a 200 us sleep's lateness; with every core busy it is
// CPU the other threads wait for: 8 workers sleeping 1 us a sample ran 22,900 to 24,200 samples/s where
// the model that counted their sleeps as waiting alone said 32,300 (system time 1.9 of 4.2 CPU seconds,
// against 0.7 with no sleeps). The model charges that part as work, the rest as waiting. The H200
// machine's host: 4 to 5 us of CPU a sleep.
struct SleepOvershoot {
    static constexpr std::array<int, 3> kSleepers{1, 4, 16};
    static constexpr std::array<double, 3> kSleepUs{50, 200, 800};
    std::array<std::array<double, 3>, 3> us{};      // [sleepers][sleep]: how late
    std::array<std::array<double, 3>, 3> cpu_us{};  // [sleepers][sleep]: the sleeper's CPU time a sleep
    // What a sleep takes from threads working on every core, the sleeper's own time included (its timer's
    // interrupt and its wake-up run on a busy core). 0: not measured.
    double beside_work_us = 0;
    // Of that, what the other threads lose: the whole less the sleeper's own.
    double others_cpu_at(int sleepers, double sleep_us) const {
        return std::max(0.0, beside_work_us - cpu_at(sleepers, sleep_us));
    }

    double at(int sleepers, double sleep_us) const { return interpolated(us, sleepers, sleep_us); }
    // Of at(): the part the sleeper spends on a core (never more than the whole).
    double cpu_at(int sleepers, double sleep_us) const {
        return std::min(interpolated(cpu_us, sleepers, sleep_us), at(sleepers, sleep_us));
    }

  private:
    using Grid = std::array<std::array<double, 3>, 3>;
    static double interpolated(const Grid& grid, int sleepers, double sleep_us);
};

// Staging back to back finds its bounce buffer and the batch in the caches; a train loop stages once a
// batch, and between two stagings the caches cool (other work, and on a virtual machine other guests,
// take them over). On this project's VM a 1 MiB staging took 45-55 us back to back or up to 1 ms after the
// last, 70-115 us 1.5 to 2 ms after, and 115-120 us (9 GB/s) from 6 ms on, both cores busy or idle alike;
// the pipeline's train loop staged 1.5 MiB batches at 7 GB/s between 7.6 ms kernels where the curve said
// 26, at 12 between 1 ms kernels, at 19 between 0.1 ms ones. Measured at 1 MiB: the rate once cold (16 ms
// since the last staging), and what share of the way from warm to cold a staging 1, 2 and 4 ms after the
// last has gone, linear between them (none at 0, all at 16 ms): the ramp's shape moved from one
// measurement to the next (cold from 1.5 ms on in one of four), and no one curve fitted them all.
struct StagingCooling {
    static constexpr std::array<double, 3> kGapsMs{1, 2, 4};
    static constexpr double kColdGapMs = 16;
    double cold_gbps = 0;            // 0: not measured, or no cooling seen: staging is as warm as its curve
    std::array<double, 3> cooled{};  // at kGapsMs, from 0 (warm) to 1 (cold), non-decreasing
    double cooled_after(double idle_ms) const;
};

// A new figure here goes into for_each_figure() too (a new curve: into kHostRateCurves, below).
struct HostRates {
    int cores = 1;
    // The cores' worth of time this process's threads get when `cores` of them want to run at once: less
    // than `cores` on a machine busy with other processes, or a virtual machine whose host runs others.
    // 0: not measured, taken as all of them.
    double cores_available = 0;
    double usable_cores() const {
        return cores_available > 0 ? std::min(cores_available, static_cast<double>(cores)) : cores;
    }
    // These rates with `others` cores' worth of the machine busy with other work (the app's frames, other
    // programs: other_cpu_load.h): what they leave, where that is less than was measured available, and
    // a quarter of a core at least.
    HostRates leaving(double others) const {
        HostRates left = *this;
        left.cores_available = std::max(kFewestCores, std::min(usable_cores(), cores - others));
        return left;
    }
    static constexpr double kFewestCores = 0.25;
    // Workers' convert, per output (float32) byte: samples under 256 KiB use plain stores, larger ones
    // streaming stores (dataset.cpp); indexed by the batch's bytes. Measured into pool buffers taken in
    // turn, as workers fill them.
    ByteRateCurve convert_plain, convert_streaming;
    // ... with plain stores into one buffer filled again and again, as the train loop's inline loading
    // (num_workers=0) reuses the buffer it just freed: what fits stays in the cache.
    ByteRateCurve convert_plain_reused;
    // ... per output byte too, into the other transfer dtypes: uint8 (the pixels copied as they are),
    // float16 (the CPU's F16C conversion) and bfloat16 (SSE2 integer steps, dataset.cpp): on this project's
    // VM bfloat16 converted at 6 GB/s where float16 ran at 10 (16 to 64 samples of 1x256x256 and 3x224x224),
    // and with both taken at float16's rate bfloat16 loaders were predicted up to 55% fast.
    ByteRateCurve convert_uint8, convert_half, convert_bfloat16;
    // ... and the others into one buffer filled again and again too, for inline loading, as
    // convert_plain_reused: on this project's VM 32 samples of 3x384x384 went into one buffer with streaming
    // stores at 21.7 GB/s, and in the pipeline's inline fetch spans at 19.6, where convert_streaming (four
    // buffers, three batches at 64 MiB) had 14.4; 16 uint8 samples of 3x512x512 at 16.5 against 8.5.
    ByteRateCurve convert_streaming_reused, convert_uint8_reused, convert_half_reused,
        convert_bfloat16_reused;
    // ... uint8 samples of 256 KiB and up, copied with streaming stores (dataset.cpp's copy_pixels), into
    // buffers in turn and into one reused: on the GPU machine's H200 host two workers copying 3x384x384
    // samples straight into pinned memory made 70,476 samples/s where memcpy's curve predicted 39,470.
    ByteRateCurve convert_uint8_streaming, convert_uint8_streaming_reused;
    double per_sample_ns = 0;  // a fetch call's own cost, beyond its bytes
    // The pin thread's copy, by batch bytes, of a batch a worker wrote with plain stores (samples under
    // 256 KiB: what fits may still be in the cache the cores share), timed as a busy pin thread copies:
    // back to back while another thread writes the next source, neither sleeping in between ...
    ByteRateCurve memcpy_rate;
    // ... and of one written with streaming stores (samples of 256 KiB and up, in every dtype: memory).
    ByteRateCurve memcpy_from_streamed;
    // PageableStaging::stage to the device (H2D), by copy bytes, from a batch written either way.
    ByteRateCurve staging_rate, staging_from_streamed;
    // ... and from it (D2H): writing a pageable buffer that is not in cache is slower than reading one (on
    // the H100 host, 8 MiB results ran a fifth slower than the H2D rate said). Two buffers in turn, so a
    // point is also a working set of twice its size: the model reads it where the train loop's result
    // buffers make theirs (Model::staging_curve_bytes).
    ByteRateCurve staging_from_device_rate;
    // The curves above stage back to back; a train loop stages once a batch (StagingCooling).
    StagingCooling staging_cooling;
    // What a staging of `bytes` (`warm_ns` on its curve) takes beyond that when what it reads was written
    // `source_idle_ns` ago and its thread last staged `bounce_idle_ns` ago: how far each has cooled (half
    // of the copy's time each), times how much slower a cold staging runs. Up to kCooledBytes of it, twice
    // the bounce buffer: of a larger copy the curves' two buffers in turn already read much from memory.
    // (Predicting seeds 1414 and 1515's runs again, 2, 4 or 8 MiB moved no more than three configs of 200
    // into or out of 10%, the same as predicting on another measurement of the rates.)
    static constexpr double kCooledBytes = 4 << 20;
    double staging_cooled_ns(double bytes, double warm_ns, double source_idle_ns,
                             double bounce_idle_ns) const;
    // Threads doing the same memory-bound work at once share the memory bus: how many threads' worth of
    // it there is, by working-set size (in the GB/s slots of ByteRateCurve): bus_threads_measured(cores)
    // threads run at once, and this is their count times what each gets of what one gets alone. 2 on two
    // cores that keep all of their speed together, as in cache.
    ByteRateCurve convert_bus_threads, memcpy_bus_threads;
    // ... and with half of them copying, half converting (the odd one out converts), as the pin thread
    // copies while workers convert: a copy and a convert met less on the bus than two of either kind. On
    // this project's VM at 50 MB, two converting threads kept 0.6 to 0.7 of their speed each and two copying
    // 0.7 to 0.9, where one of each kept 0.9 and 0.8 (a pin thread copied 50 MB batches at 8.1 GB/s beside
    // converting workers, where 7.7 alone and the bus shared as two of a kind said 5.2). 0: not measured.
    ByteRateCurve mixed_bus_threads;
    // Threads run at once to measure the bus: one per core, up to eight. Two on a 16-core host may land on
    // one physical core's two hardware threads and halve each other there, which says nothing of the bus:
    // the model then held 4 workers to one thread's bandwidth (3x512x512 batches predicted at 5,000
    // samples/s where the simulated GPU ran 16,400, on the H100 machine's host). Four could not see past
    // four: on the GPU machine's 16-core host 8 threads converting kept 6 to 10 threads' worth, and the
    // model held 8 and 16 workers to the 3 or 4 that four threads measured (8 workers collating 3x128x128
    // batches: 84,000 samples/s predicted, 189,000 with eight, 225,000 measured). Eight at 64 MiB take 1 GiB.
    static int bus_threads_measured(int cores) { return std::clamp(cores, 1, 8); }
    double device_call_us = 0;  // one call into the simulated GPU, its bookkeeping included
    double handoff_us = 0;      // a BlockingQueue push until the blocked popper runs
    // A push that wakes a thread blocked in pop() on another core, when the cores share none of its cost:
    // the pusher's CPU time in the push (the wake-up's system call and inter-processor interrupt), the woken
    // thread's CPU time from then until its pop() returns, and the push's start until then. On this
    // project's 2-core VM 11 to 14, 3 to 10 and 22 to 38 us, where a hand-off on one core takes 1: the
    // engine benchmark's zero-cost batches ran at 33,000 a second with one worker and a pin thread, where
    // 1 us hand-offs predicted 256,000 (with these figures: 40,000).
    double wake_us = 0, woken_us = 0, wake_latency_us = 0;
    // A simulated GPU op's end until the host thread waiting on it runs.
    double gpu_wake_us = 0;
    SleepOvershoot sleep_overshoot;
    // GB/s of faulting fresh memory in (a write to each page): a pool buffer's first batch pays it beside
    // the batch's own writes. 0: not measured, taken as free.
    double first_touch_gbps = 0;
    double first_touch_ns(double bytes) const { return first_touch_gbps > 0 ? bytes / first_touch_gbps : 0; }
};

// Every curve of HostRates, for what treats them alike (median_of(), and tests that set them all).
inline constexpr std::array kHostRateCurves{&HostRates::convert_plain,
                                            &HostRates::convert_streaming,
                                            &HostRates::convert_plain_reused,
                                            &HostRates::convert_uint8,
                                            &HostRates::convert_half,
                                            &HostRates::convert_streaming_reused,
                                            &HostRates::convert_uint8_reused,
                                            &HostRates::convert_half_reused,
                                            &HostRates::convert_bfloat16,
                                            &HostRates::convert_bfloat16_reused,
                                            &HostRates::convert_uint8_streaming,
                                            &HostRates::convert_uint8_streaming_reused,
                                            &HostRates::memcpy_rate,
                                            &HostRates::memcpy_from_streamed,
                                            &HostRates::staging_rate,
                                            &HostRates::staging_from_streamed,
                                            &HostRates::staging_from_device_rate,
                                            &HostRates::convert_bus_threads,
                                            &HostRates::memcpy_bus_threads,
                                            &HostRates::mixed_bus_threads};

// Calls visit(figure) on every figure of `rates` (a HostRates, const or not) but `cores`, in one fixed
// order: what median_of() takes the middle of, and what recent_host_rates.h keeps between processes.
template <class Rates, class Visit>
void for_each_figure(Rates& rates, Visit&& visit) {
    for (auto member : kHostRateCurves)
        for (auto& gbps : (rates.*member).gbps) visit(gbps);
    for (auto member : {&HostRates::cores_available, &HostRates::per_sample_ns, &HostRates::device_call_us,
                        &HostRates::handoff_us, &HostRates::wake_us, &HostRates::woken_us,
                        &HostRates::wake_latency_us, &HostRates::gpu_wake_us, &HostRates::first_touch_gbps})
        visit(rates.*member);
    visit(rates.staging_cooling.cold_gbps);
    for (auto& cooled : rates.staging_cooling.cooled) visit(cooled);
    for (auto& row : rates.sleep_overshoot.us)
        for (auto& us : row) visit(us);
    for (auto& row : rates.sleep_overshoot.cpu_us)
        for (auto& us : row) visit(us);
    visit(rates.sleep_overshoot.beside_work_us);
}

// The figures that most often decide a prediction, on one line: cores (and what of them is available when
// that is under 95%), convert and memcpy GB/s (1 MiB), first touch, how late a 200 us sleep ends (alone
// and with 16 at once), hand-off and GPU wake-up.
std::string describe(const HostRates& host);

// Measures this host (4 to 5 s on this project's 2-core VM, both cores busy much of it).
HostRates measure_host_rates();
// The cores a measurement of this host records in HostRates::cores (at least 1).
int cores_of_this_host();
// Each figure's median over several measurements (the middle one of three). A virtual machine's rates swing
// from one second to the next (on this project's 2-core VM, convert 12 to 25 GB/s and memcpy 8 to 21 in six
// measurements of one process a few seconds apart) while a run of a few seconds averages over the swings:
// the median of three measurements minutes apart comes nearer what a run meets than any one of them.
// `cores` is the first measurement's. Empty: the default HostRates.
HostRates median_of(std::span<const HostRates> measurements);

// Where this_host_rates() takes its figures from, on first use.
struct HostRatesSource {
    std::function<HostRates()> get;
    std::function<bool()> would_measure;  // whether get() would measure the host now (seconds, cores busy)
};
// Sets that source; by default it is measure_host_rates(). pinscope's main sets the measurements kept
// between invocations (recent_host_rates.h), so that the app's preview, sweeps and advice start from them
// as `pinscope predict` does. Only before the first this_host_rates(): later it changes nothing.
void set_this_host_rates_source(HostRatesSource source);

// The source's figures, taken once per process on first use; later calls return the same figures.
const HostRates& this_host_rates();
// Whether this_host_rates() has its figures, so that it returns at once (it blocks while measuring).
bool this_host_rates_measured();
// Whether this_host_rates() would measure the host (rather than return or read figures at hand).
bool this_host_rates_would_measure();

}  // namespace pinscope
