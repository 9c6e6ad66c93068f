#pragma once
// The parts of measure_host_rates() (host_rates.h) that time threads rather than bytes: how long a hand-off
// between two threads takes, what waking a thread on another core costs, how late the simulated GPU's
// waiters and a sleep's sleepers come back and what a sleep costs the cores, and how much of the cores
// this process gets. Each runs threads of its own; host_thread_rates.cpp says how, and what each read on
// this project's VM and the GPU machine's host.
namespace pinscope::measure {

// Half a round trip between two threads through BlockingQueues, the popper blocked each time (us).
double handoff_us();

// A push that wakes a thread blocked in pop() on another core: the pusher's CPU time in the push, the
// woken thread's CPU time until its pop() returns, and the push's start until then (us; medians).
struct WakeAcrossCores {
    double wake_us = 0, woken_us = 0, latency_us = 0;
};
WakeAcrossCores wake_across_cores(double handoff_us);

// One call into the simulated GPU, its own bookkeeping included (us).
double device_call_us();

// How late a thread blocked on the simulated GPU for a 200 us kernel comes back (us).
double gpu_wake_us();

// How late a sleep of `sleep_us` ends when `sleepers` threads sleep such waits at once, and the sleepers'
// own CPU time per sleep (us).
struct SleepLateness {
    double late_us = 0, cpu_us = 0;
};
SleepLateness sleep_overshoot(int sleepers, double sleep_us);

// What a 50 us sleep takes from threads working on every core, the sleeper's own time included (us).
double sleep_cost_beside_work_us(int cores);

// The cores' worth of time `cores` spinning threads get at once (1 to `cores`).
double cores_available(int cores);

}  // namespace pinscope::measure
