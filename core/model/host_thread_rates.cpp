// The host rates' measurements of threads: hand-offs, wake-ups, sleeps and the cores this process gets
// (host_thread_rates.h). Each runs threads of its own and takes a few to a few hundred milliseconds.
#include "core/model/host_thread_rates.h"

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <pthread.h>
#include <sched.h>

#include "core/device/calibration.h"
#include "core/device/device_call_cost.h"
#include "core/device/median.h"
#include "core/device/sim/sim_device.h"
#include "core/pipeline/blocking_queue.h"
#include "core/trace/clock.h"
#include "core/trace/precise_sleep.h"

namespace pinscope::measure {
namespace {

// The mean of the middle half of `samples`: wake-up latencies come in two clusters (the core was awake or
// not), and a median flips between them from one measurement to the next.
double interquartile_mean(std::vector<double> samples) {
    std::sort(samples.begin(), samples.end());
    const size_t from = samples.size() / 4, to = samples.size() - samples.size() / 4;
    double sum = 0;
    for (size_t i = from; i < to; ++i) sum += samples[i];
    return std::max(0.0, sum / static_cast<double>(to - from));
}

}  // namespace

// Half a round trip between two threads through BlockingQueues, each popper blocked when its item comes.
double handoff_us() {
    constexpr int kTrips = 400;
    BlockingQueue<int> there, back;
    std::thread echo([&] {
        while (std::optional<int> item = there.pop()) back.push(*item);
    });
    const TimeNs start = now_ns();
    for (int i = 0; i < kTrips; ++i) {
        there.push(i);
        back.pop();
    }
    const double us = static_cast<double>(now_ns() - start) / kTrips / 2 / 1e3;
    there.close();
    echo.join();
    return us;
}

// A push that wakes a thread blocked on another core (HostRates::wake_us and its neighbours), as a worker
// hands a batch to a pin thread that waits for it: the popper held to one core, the pusher to another,
// which spins between pushes so that the popper has gone to sleep each time and the pusher's core stays
// awake. Medians. With a single core to run on there is no other core: the hand-off's own figures.
WakeAcrossCores wake_across_cores(double handoff) {
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0 || CPU_COUNT(&allowed) < 2)
        return {0, 0, handoff};
    int first = -1, last = -1;
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
        if (CPU_ISSET(cpu, &allowed)) (first < 0 ? first : last) = cpu;
    const auto hold_to = [](int cpu) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        pthread_setaffinity_np(pthread_self(), sizeof one, &one);
    };
    constexpr int kWakes = 200;
    constexpr TimeNs kGap = 200 * kNsPerUs;  // long enough for the popper to be asleep
    BlockingQueue<TimeNs> queue;
    std::vector<double> wake(kWakes), woken(kWakes), latency(kWakes);
    std::thread popper([&] {
        hold_to(last);
        for (int i = 0; i < kWakes; ++i) {
            const TimeNs cpu = thread_cpu_ns();
            const std::optional<TimeNs> pushed = queue.pop();
            const TimeNs back = now_ns();
            woken[static_cast<size_t>(i)] = static_cast<double>(thread_cpu_ns() - cpu) / 1e3;
            latency[static_cast<size_t>(i)] = static_cast<double>(back - pushed.value_or(back)) / 1e3;
        }
    });
    std::thread pusher([&] {
        hold_to(first);
        for (int i = 0; i < kWakes; ++i) {
            spin_until_ns(now_ns() + kGap);
            const TimeNs cpu = thread_cpu_ns();
            queue.push(now_ns());
            wake[static_cast<size_t>(i)] = static_cast<double>(thread_cpu_ns() - cpu) / 1e3;
        }
    });
    pusher.join();
    popper.join();
    return {median(std::move(wake)), median(std::move(woken)), median(std::move(latency))};
}

double device_call_us() {
    Calibration free_calls = builtin_calibration();
    free_calls.host_call_us = 0;
    Trace scratch;
    SimDevice device(scratch, free_calls);
    return time_device_call_us(device, /*batches=*/200, /*rounds=*/3);
}

// How late a thread blocked on the simulated GPU comes back: a 200 us kernel, then synchronize.
double gpu_wake_us() {
    Calibration free_calls = builtin_calibration();
    free_calls.host_call_us = 0;
    Trace scratch;
    SimDevice device(scratch, free_calls);
    Stream stream = device.create_stream(0);
    DeviceBuffer input = device.allocate_device(4096);
    KernelWork work;
    work.input = &input;
    work.input_bytes = 4096;
    work.duration_us = 200;
    std::vector<double> late_us;
    for (int i = 0; i < 48; ++i) {
        const TimeNs start = now_ns();
        device.launch_kernel(work, stream);
        device.synchronize(stream);
        late_us.push_back(static_cast<double>(now_ns() - start) / 1e3 - work.duration_us);
    }
    return interquartile_mean(std::move(late_us));
}

// How late a sleep of `sleep_us` ends, as a sample's io_us wait sleeps (dataset.cpp), when `sleepers`
// threads sleep such waits at once. The mean of all their waits but the longest 1%: the pipeline pays every
// late wake-up, and a single stall of the machine should not weigh on a figure taken in milliseconds.
// On this project's 2-core VM, 100 us sleeps: 20 us alone, 25 with 8 at once, 30 with 16. Beside it, the
// sleepers' CPU time per sleep (their thread clocks over all their waits, averaged over the sleepers).
SleepLateness sleep_overshoot(int sleepers, double sleep_us) {
    const int waits = std::clamp(static_cast<int>(20'000 / sleep_us), 25, 100);  // 20 ms or 25 waits
    std::barrier start(sleepers);
    std::mutex mutex;
    std::vector<double> late_us;
    double cpu_us = 0;
    std::vector<std::thread> sleeping;
    for (int t = 0; t < sleepers; ++t)
        sleeping.emplace_back([&] {
            std::vector<double> mine;
            start.arrive_and_wait();
            const TimeNs cpu = thread_cpu_ns();
            for (int i = 0; i < waits; ++i) {
                const TimeNs begin = now_ns();
                sleep_for_ns(static_cast<TimeNs>(sleep_us * 1e3));
                mine.push_back(static_cast<double>(now_ns() - begin) / 1e3 - sleep_us);
            }
            const double my_cpu_us = static_cast<double>(thread_cpu_ns() - cpu) / 1e3 / waits;
            std::lock_guard lock(mutex);
            late_us.insert(late_us.end(), mine.begin(), mine.end());
            cpu_us += my_cpu_us / sleepers;
        });
    for (std::thread& thread : sleeping) thread.join();
    std::sort(late_us.begin(), late_us.end());
    const size_t kept = late_us.size() - late_us.size() / 100;
    double sum = 0;
    for (size_t i = 0; i < kept; ++i) sum += late_us[i];
    return {std::max(0.0, sum / static_cast<double>(kept)), std::max(0.0, cpu_us)};
}

// What a sleep of 50 us takes from threads working on every core: the sleeper's own CPU time (it runs on
// their cores) and what its thread's clock does not see, its timer's interrupt and its wake-up. Windows
// of 60 ms with `cores` threads doing fixed pieces of arithmetic, alone and beside 2 x `cores` sleepers,
// in turn; each window beside sleepers against the mean of the two alone around it: the pieces it lost,
// as core time, per sleep. On this project's 2-core VM 15 to 38 us in all, where the sleeper's clock says
// 6 to 30; on the H200 machine's 16-core host 3 to 11. The median of three.
double sleep_cost_beside_work_us(int cores) {
    constexpr TimeNs kWindow = 60 * kNsPerMs;
    constexpr TimeNs kSleep = 50 * kNsPerUs;
    const auto window = [&](bool with_sleepers, int64_t* sleeps) {
        std::atomic<bool> stop{false};
        std::atomic<int64_t> pieces{0}, slept{0};
        std::vector<std::thread> threads;
        for (int c = 0; c < cores; ++c)
            threads.emplace_back([&] {
                volatile double x = 1;
                int64_t done = 0;
                while (!stop.load(std::memory_order_relaxed)) {
                    for (int i = 0; i < 256; ++i) x = x * 1.0000001 + 1e-9;
                    ++done;
                }
                pieces += done;
            });
        if (with_sleepers)
            for (int s = 0; s < 2 * cores; ++s)
                threads.emplace_back([&] {
                    int64_t done = 0;
                    while (!stop.load(std::memory_order_relaxed)) {
                        sleep_for_ns(kSleep);
                        ++done;
                    }
                    slept += done;
                });
        std::this_thread::sleep_for(std::chrono::nanoseconds(kWindow));
        stop = true;
        for (std::thread& thread : threads) thread.join();
        if (sleeps) *sleeps = slept;
        return static_cast<double>(pieces);
    };
    std::vector<double> costs;
    double before = window(false, nullptr);
    for (int round = 0; round < 3; ++round) {
        int64_t sleeps = 0;
        const double with = window(true, &sleeps);
        const double after = window(false, nullptr);
        const double alone = (before + after) / 2;
        if (alone > 0 && sleeps > 0)
            costs.push_back(std::max(0.0, 1 - with / alone) * cores * static_cast<double>(kWindow) / 1e3 /
                            static_cast<double>(sleeps));
        before = after;
    }
    return costs.empty() ? 0 : median(std::move(costs));
}

// The cores' worth of time `cores` threads get at once: each spins on an OnCoreClock for 400 ms, and what
// it spent off its core (another process, or the hypervisor, ran there) is taken off. A decode_us spin is
// the same work, making up for the same gaps, so this is what decode-bound workers get. 400 ms: beside a
// busy process on 2 cores, 100 ms windows gave 1.0 to 1.7 cores from one to the next, 500 ms 1.5 to 1.7
// (decode-bound workers got 1.55).
double cores_available(int cores) {
    constexpr TimeNs kSpin = 400 * kNsPerMs;
    std::vector<TimeNs> on_core(static_cast<size_t>(cores));
    std::barrier start(cores);
    std::vector<std::thread> spinning;
    for (int t = 0; t < cores; ++t)
        spinning.emplace_back([&, t] {
            start.arrive_and_wait();
            OnCoreClock clock;
            const TimeNs begin = clock.last(), end = begin + kSpin;
            TimeNs off = 0;
            while (clock.last() < end) off += clock.tick();
            on_core[static_cast<size_t>(t)] = clock.last() - begin - off;
        });
    for (std::thread& thread : spinning) thread.join();
    double sum = 0;
    for (TimeNs ns : on_core) sum += static_cast<double>(ns) / static_cast<double>(kSpin);
    return std::clamp(sum, 1.0, static_cast<double>(cores));
}

}  // namespace pinscope::measure
