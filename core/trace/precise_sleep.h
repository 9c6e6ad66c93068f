#pragma once
// Waiting for a modelled GPU event that is microseconds away. A plain sleep overshoots by the kernel's
// timer slack (50 us by default on Linux), longer than many copies take, so waits sleep most of the
// way with the slack reduced and spin for the rest, keeping the core: yielding it to workers that convert
// on every core lost whole time slices (a 188 us copy's waiter let go 1.4 ms late).
#include <thread>

#include <sys/prctl.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/trace/clock.h"

namespace pinscope {

// Per thread: asks the kernel to wake this thread within 1 us of the requested time.
inline void reduce_timer_slack() {
    thread_local bool reduced = false;
    if (!reduced) {
        prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
        reduced = true;
    }
}

// For waits that model waiting (io_us): no spinning, so the core stays free for others.
inline void sleep_for_ns(TimeNs duration) {
    reduce_timer_slack();
    if (duration > 0) std::this_thread::sleep_for(std::chrono::nanoseconds(duration));
}

// One turn of a spin-wait: tells the core this thread is waiting, and keeps it.
inline void spin_pause() {
#if defined(__SSE2__)
    _mm_pause();
#endif
}

// How much of a wait on the modelled GPU is spun rather than slept: a wait this short never sleeps, so it
// ends on time (the pipeline model charges no wake-up for it).
inline constexpr TimeNs kSpinWindowNs = 30 * kNsPerUs;

// For waits on the modelled GPU, where a late wake-up would delay the pipeline.
inline void sleep_until_ns(TimeNs deadline) {
    reduce_timer_slack();
    TimeNs now = now_ns();
    if (deadline - now > kSpinWindowNs)
        std::this_thread::sleep_for(std::chrono::nanoseconds(deadline - now - kSpinWindowNs));
    while (now_ns() < deadline) spin_pause();
}

}  // namespace pinscope
