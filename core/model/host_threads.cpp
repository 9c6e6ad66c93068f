#include "core/model/host_threads.h"

namespace pinscope::model {

void share_host(std::vector<HostThread*>& threads, const HostRates& host) {
    int working = 0;
    for (HostThread* t : threads) working += t->phase == HostThread::Phase::working;
    const double cores = host.usable_cores();
    const double cpu = working > cores ? cores / working : 1.0;
    double bus = 0;
    for (HostThread* t : threads)
        if (t->phase == HostThread::Phase::working) bus += t->bus_use * cpu;
    const double slow = bus > 1 ? 1 / bus : 1.0;
    for (HostThread* t : threads)
        if (t->phase == HostThread::Phase::working) t->rate = cpu * (t->bus_use > 0 ? slow : 1.0);
}

double bus_use(const ByteRateCurve& bus_threads, double bytes) {
    return 1 / std::max(0.6, bus_threads.at(bytes));
}

}  // namespace pinscope::model
