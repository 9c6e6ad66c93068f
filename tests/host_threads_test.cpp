// The host as the pipeline model sees it (core/model/host_threads.h): working threads share the cores and,
// when memory-bound, the memory bus, whose size is measured in threads' worth (HostRates). Deterministic:
// the rates are set here, not measured.
#include <vector>

#include <doctest/doctest.h>

#include "core/model/host_threads.h"

namespace pinscope::model {
namespace {

HostRates host_of(int cores, double bus_threads) {
    HostRates host;
    host.cores = cores;
    host.cores_available = cores;
    host.convert_bus_threads.gbps.fill(bus_threads);
    return host;
}

// `count` workers converting batches of `bytes` at once: the rate each gets.
std::vector<double> rates_of(int count, const HostRates& host, double bytes = 48 << 20) {
    std::vector<HostThread> workers(static_cast<size_t>(count));
    std::vector<HostThread*> threads;
    for (HostThread& w : workers) {
        w.work(1e6, converting(host, bytes));
        threads.push_back(&w);
    }
    share_host(threads, host);
    std::vector<double> rates;
    for (const HostThread& w : workers) rates.push_back(w.rate);
    return rates;
}

TEST_CASE("workers on cores to spare keep their speed while the bus they share has room for them") {
    // Four workers on 16 cores, a bus worth four converting threads: each at full speed.
    for (double rate : rates_of(4, host_of(16, 4.0))) CHECK(rate == doctest::Approx(1.0));
    // Eight on the same bus share it: half each.
    for (double rate : rates_of(8, host_of(16, 4.0))) CHECK(rate == doctest::Approx(0.5));
    // The reading that made four workers convert one after another on a 16-core host: a bus worth one
    // thread (two measured threads that halved each other) gives each a quarter.
    for (double rate : rates_of(4, host_of(16, 1.0))) CHECK(rate == doctest::Approx(0.25));
}

TEST_CASE("working threads beyond the cores share them, and the bus only for what they use of it") {
    // Four workers on two cores, a bus with room for all: half a core each.
    for (double rate : rates_of(4, host_of(2, 8.0))) CHECK(rate == doctest::Approx(0.5));
    // At half a core each, four workers use the bus of two running flat out: a bus worth two is full but
    // not over, so the cores alone slow them.
    for (double rate : rates_of(4, host_of(2, 2.0))) CHECK(rate == doctest::Approx(0.5));
    // A thread that is not memory-bound (decode) keeps its core's share when the bus is over full: one
    // converting thread on a bus measured at 0.6 of a thread's worth runs at 0.6, the decode beside it at 1.
    HostRates host = host_of(2, 0.6);
    HostThread convert, decode;
    convert.work(1e6, converting(host, 48 << 20));
    decode.work(1e6);
    std::vector<HostThread*> threads = {&convert, &decode};
    share_host(threads, host);
    CHECK(decode.rate == doctest::Approx(1.0));
    CHECK(convert.rate == doctest::Approx(0.6));
}

// Two threads on two cores, each doing `a` and `b` on 50 MB batches: the rate each gets.
std::pair<double, double> pair_rates(const HostRates& host, BusUse a, BusUse b) {
    HostThread first, second;
    first.work(1e6, a);
    second.work(1e6, b);
    std::vector<HostThread*> threads = {&first, &second};
    share_host(threads, host);
    return {first.rate, second.rate};
}

TEST_CASE("a copy beside a convert keeps what the mixed measurement says, two of a kind what theirs says") {
    // This project's VM at 50 MB, roughly: two converting threads kept 0.625 of their speed each, two
    // copying 0.75, one of each 0.875.
    HostRates host = host_of(2, 1.25);
    host.memcpy_bus_threads.gbps.fill(1.5);
    host.mixed_bus_threads.gbps.fill(1.75);
    const double bytes = 50e6;
    const auto [convert_a, convert_b] = pair_rates(host, converting(host, bytes), converting(host, bytes));
    CHECK(convert_a == doctest::Approx(0.625));
    CHECK(convert_b == doctest::Approx(0.625));
    const auto [copy_a, copy_b] = pair_rates(host, copying(host, bytes), copying(host, bytes));
    CHECK(copy_a == doctest::Approx(0.75));
    CHECK(copy_b == doctest::Approx(0.75));
    const auto [convert, copy] = pair_rates(host, converting(host, bytes), copying(host, bytes));
    CHECK(convert == doctest::Approx(0.875));
    CHECK(copy == doctest::Approx(0.875));
    // Unmeasured (0), the mix shares the bus as two of a kind do: both parts whole, 0.8 + 0.67.
    host.mixed_bus_threads.gbps.fill(0);
    CHECK(convert_copy_overlap(host, bytes) == 1.0);
    const auto [convert_unmeasured, copy_unmeasured] =
        pair_rates(host, converting(host, bytes), copying(host, bytes));
    CHECK(convert_unmeasured == doctest::Approx(1 / (0.8 + 1 / 1.5)));
    CHECK(copy_unmeasured == doctest::Approx(1 / (0.8 + 1 / 1.5)));
    // A mix that kept its full speed (2 threads' worth): its demand is at most the whole bus, so beside the
    // convert's 0.8 no more than 0.2 of the copy's 0.67 can count.
    host.mixed_bus_threads.gbps.fill(2.0);
    CHECK(convert_copy_overlap(host, bytes) == doctest::Approx(0.3).epsilon(1e-9));
}

// `working` threads doing CPU work beside `sleeping` threads asleep, each of those taking `load` cores'
// worth of the others' time (its timers' interrupts and wake-ups): the rate each working thread gets.
double rate_beside_sleepers(const HostRates& host, int working, int sleeping, double load) {
    std::vector<HostThread> threads(static_cast<size_t>(working + sleeping));
    std::vector<HostThread*> all;
    for (int i = 0; i < working + sleeping; ++i) {
        HostThread& t = threads[static_cast<size_t>(i)];
        if (i < working)
            t.work(1e6);
        else
            t.sleep(0, 1e6, load);
        all.push_back(&t);
    }
    share_host(all, host);
    return threads.front().rate;
}

TEST_CASE("sleepers' wake-ups take from working threads only when the cores are short") {
    // A sleeper's timer fires on a busy core. One worker on two cores, a sleeper taking half a core: the
    // core it works on is untouched.
    CHECK(rate_beside_sleepers(host_of(2, 8.0), 1, 1, 0.5) == doctest::Approx(1.0));
    // Two workers on two cores: the half core comes out of their 2, 0.75 each.
    CHECK(rate_beside_sleepers(host_of(2, 8.0), 2, 1, 0.5) == doctest::Approx(0.75));
    // Eight on 16 cores beside four sleepers of a core each: 12 left, enough.
    CHECK(rate_beside_sleepers(host_of(16, 8.0), 8, 4, 1.0) == doctest::Approx(1.0));
    // However many sleep, the working threads keep a quarter of the cores: the loads are measured one
    // sleeper at a time, and ten of them would otherwise leave nothing.
    CHECK(rate_beside_sleepers(host_of(2, 8.0), 2, 10, 1.0) == doctest::Approx(0.25));
    // A thread that is not asleep takes nothing however it slept before.
    HostThread was_asleep;
    was_asleep.sleep(0, 1e6, 1.0);
    was_asleep.sleep(0, 0);
    CHECK(was_asleep.load == 0);
}

TEST_CASE("a bus measured at less than a thread's worth is taken as 0.6 of one, as the noise floor") {
    CHECK(bus_use(host_of(16, 0.2).convert_bus_threads, 1 << 20) == doctest::Approx(1 / 0.6));
    CHECK(HostRates::bus_threads_measured(1) == 1);
    CHECK(HostRates::bus_threads_measured(2) == 2);
    CHECK(HostRates::bus_threads_measured(4) == 4);
    CHECK(HostRates::bus_threads_measured(16) == 8);
}

}  // namespace
}  // namespace pinscope::model
