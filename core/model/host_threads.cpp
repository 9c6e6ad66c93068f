#include "core/model/host_threads.h"

namespace pinscope::model {

void share_host(std::vector<HostThread*>& threads, const HostRates& host) {
    int working = 0;
    double sleepers_load = 0;
    for (HostThread* t : threads) {
        working += t->phase == HostThread::Phase::working;
        if (t->phase == HostThread::Phase::sleeping) sleepers_load += t->load;
    }
    // However many sleep, the working threads keep a quarter of the cores: a sleep's load is measured with
    // twice as many sleepers as cores, and says nothing of what ten times as many would take.
    constexpr double kLeastShare = 0.25;
    const double cores = host.usable_cores() * std::max(kLeastShare, 1 - sleepers_load / host.usable_cores());
    const double cpu = working > cores ? cores / working : 1.0;
    double converts = 0, copies = 0, overlap_weighted = 0;
    for (HostThread* t : threads) {
        if (t->phase != HostThread::Phase::working) continue;
        const double part = t->bus.part * cpu;
        (t->bus.copies ? copies : converts) += part;
        overlap_weighted += part * t->bus.overlap;
    }
    const double total = converts + copies;
    const double overlap = total > 0 ? overlap_weighted / total : 1;
    const double bus = std::max(converts, copies) + overlap * std::min(converts, copies);
    const double slow = bus > 1 ? 1 / bus : 1.0;
    for (HostThread* t : threads)
        if (t->phase == HostThread::Phase::working) t->rate = cpu * (t->bus.part > 0 ? slow : 1.0);
}

double bus_use(const ByteRateCurve& bus_threads, double bytes) {
    return 1 / std::max(0.6, bus_threads.at(bytes));
}

BusUse converting(const HostRates& host, double bytes) {
    return {bus_use(host.convert_bus_threads, bytes), false, convert_copy_overlap(host, bytes)};
}

BusUse copying(const HostRates& host, double bytes) {
    return {bus_use(host.memcpy_bus_threads, bytes), true, convert_copy_overlap(host, bytes)};
}

// The mix is measured as the bus curves are, by bus_threads_measured(cores) threads, half of them (the odd
// one out converting) copying: what they get is `threads` / their demand on the bus, when it is over full.
double convert_copy_overlap(const HostRates& host, double bytes) {
    const double mixed = host.mixed_bus_threads.at(bytes);
    const int threads = HostRates::bus_threads_measured(host.cores);
    if (mixed <= 0 || threads < 2) return 1;
    const double converts = (threads + 1) / 2 * bus_use(host.convert_bus_threads, bytes);
    const double copies = threads / 2 * bus_use(host.memcpy_bus_threads, bytes);
    const double demand = threads / mixed;
    return std::clamp((demand - std::max(converts, copies)) / std::min(converts, copies), 0.0, 1.0);
}

}  // namespace pinscope::model
