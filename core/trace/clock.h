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

// The CPU time the calling thread has run (user and system), where the wall clock also counts the time
// it waited for a core: what a decode costs, or a GUI frame. A system call, unlike now_ns().
inline TimeNs thread_cpu_ns() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<TimeNs>(t.tv_sec) * kNsPerS + t.tv_nsec;
}

}  // namespace pinscope
