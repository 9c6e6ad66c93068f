#pragma once
// The one time base of pinscope: std::chrono::steady_clock in nanoseconds. Host spans, the simulated
// GPU and CUPTI (through its timestamp callback) all stamp with now_ns(), so every lane shares one axis.
#include <atomic>
#include <chrono>
#include <ctime>

#include "core/units/time_ns.h"

namespace pinscope {

inline TimeNs now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

// Spins until `deadline`, keeping the core, or until `stop` (when given) is set.
inline void spin_until_ns(TimeNs deadline, const std::atomic<bool>* stop = nullptr) {
    while (now_ns() < deadline)
        if (stop && stop->load(std::memory_order_relaxed)) return;
}

// A spinning thread's clock that tells the time it spent off its core: two readings in a row more than
// kOffCoreGap apart mean the thread was descheduled in between (another thread, another process or the
// hypervisor ran there). Back-to-back readings are tens of nanoseconds apart, a preemption or an
// interrupt microseconds. The thread's CPU clock would say the same, but reading it is a system call
// (0.7-0.8 us on this project's VM, where now_ns() takes 30 ns), too slow to read in a spin.
// A decode's spin (spend_cpu_us) and the measure of the cores this process gets (host_rates.cpp) both
// read it, so the model charges decodes exactly the time off their cores that the spin makes up for.
class OnCoreClock {
  public:
    static constexpr TimeNs kOffCoreGap = 5 * kNsPerUs;

    OnCoreClock() : last_(now_ns()) {}
    // Reads the clock: the time spent off the core since the last reading, 0 if none.
    TimeNs tick() {
        const TimeNs now = now_ns();
        const TimeNs gap = now - last_;
        last_ = now;
        return gap > kOffCoreGap ? gap : 0;
    }
    TimeNs last() const { return last_; }  // the last reading

  private:
    TimeNs last_;
};

// The CPU time (user and system) that `clock` counts (a thread's, from pthread_getcpuclockid); 0 for a
// clock that cannot be read, such as one of a thread that has exited.
inline TimeNs cpu_clock_ns(clockid_t clock) {
    timespec t{};
    if (clock_gettime(clock, &t) != 0) return 0;
    return static_cast<TimeNs>(t.tv_sec) * kNsPerS + t.tv_nsec;
}

// The CPU time the calling thread has run (user and system), where the wall clock also counts the time
// it waited for a core: what a decode costs, or a GUI frame. A system call, unlike now_ns().
inline TimeNs thread_cpu_ns() {
    return cpu_clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

}  // namespace pinscope
