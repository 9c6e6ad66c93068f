#pragma once
// The host as the pipeline model (pipeline_model.h) sees it: threads that sleep, work or block, sharing
// the cores this process gets and, when their work is memory-bound, the memory bus.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/model/host_rates.h"
#include "core/model/model_gpu.h"

namespace pinscope::model {

constexpr double kDone = 1e-6;  // ns of work left that counts as none

// What a memory-bound piece of work takes of the memory bus: the part one thread doing it alone uses (1 /
// the bus's threads' worth), and whether it converts samples (workers, inline loading) or copies (the pin
// thread, pageable staging). Two threads of one kind contend for the whole of their parts; a copy beside a
// convert for less (HostRates::mixed_bus_threads): `overlap` is the share of the smaller side's parts that
// counts then, 1 where the mix was not measured.
struct BusUse {
    double part = 0;  // 0: not memory-bound
    bool copies = false;
    double overlap = 1;
};

// One host thread: asleep until `wake`, working through `left` ns of CPU time (shared with the other
// working threads), blocked on something the model checks, or idle.
struct HostThread {
    enum class Phase : uint8_t { idle, sleeping, working, blocked };
    Phase phase = Phase::idle;
    double wake = kNever;
    double left = 0;  // ns of work at full speed
    BusUse bus;       // what this work takes of the memory bus
    double rate = 0;  // work done per ns now
    int step = 0;     // where the thread is in its own program
    int64_t batch = -1;
    double debt = 0;  // ns of work owed (a wake-up it made), paid with its next work
    // While asleep: the cores' worth of time its sleep takes from the working threads (its timers'
    // interrupts and wake-ups, which run on busy cores: HostRates::sleep_overshoot).
    double load = 0;

    void sleep(double now, double ns, double cores_taken = 0) {
        phase = ns > 0 ? Phase::sleeping : Phase::idle;
        wake = now + ns;
        load = ns > 0 ? cores_taken : 0;
    }
    void work(double ns, BusUse use = {}) {
        phase = Phase::working;
        left = std::max(ns, 0.0) + debt;
        debt = 0;
        bus = use;
    }
    // Still asleep or still working: its program has nothing to decide yet.
    bool busy(double now) const {
        return (phase == Phase::sleeping && wake > now) || (phase == Phase::working && left > kDone);
    }
};

// Working threads share the cores evenly, as much of them as other processes and the sleeping threads'
// loads leave them. Memory-bound ones also share the bus: each alone uses a part of it (1 / the bus's
// threads' worth), and when the parts of those running at once sum over the whole, each slows in
// proportion; with copies and converts running at once, the larger kind's parts count whole and the
// smaller's by their overlap. Sets each working thread's rate.
void share_host(std::vector<HostThread*>& threads, const HostRates& host);

// The part of the bus one thread uses alone, from how many threads' worth of it there is
// (HostRates::convert_bus_threads): of a bus worth 4 threads, a quarter.
double bus_use(const ByteRateCurve& bus_threads, double bytes);
// What converting, or copying, a batch of `bytes` takes of the bus on `host`.
BusUse converting(const HostRates& host, double bytes);
BusUse copying(const HostRates& host, double bytes);
// The share of the smaller kind's parts that counts when copies and converts of `bytes` run at once: what
// the mixed measurement (HostRates::mixed_bus_threads) leaves once the larger kind's parts are counted
// whole, from 0 (they never meet on the bus) to 1 (as two of a kind); 1 where the mix was not measured.
double convert_copy_overlap(const HostRates& host, double bytes);

}  // namespace pinscope::model
