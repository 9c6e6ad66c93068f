// median_of (core/model/host_rates.h): the predictor check's rates are the median of three measurements,
// each figure on its own. Deterministic: the measurements are made up here.
#include <vector>

#include <doctest/doctest.h>

#include "core/model/host_rates.h"

namespace pinscope {
namespace {

// A measurement whose every figure is `level` (cores aside).
HostRates all_at(double level) {
    HostRates r;
    r.cores = 2;
    for (ByteRateCurve HostRates::*curve : kHostRateCurves) (r.*curve).gbps.fill(level);
    for (double* figure : {&r.cores_available, &r.per_sample_ns, &r.device_call_us, &r.handoff_us, &r.wake_us,
                           &r.woken_us, &r.wake_latency_us, &r.gpu_wake_us, &r.first_touch_gbps})
        *figure = level;
    for (auto& row : r.sleep_overshoot.us) row.fill(level);
    for (auto& row : r.sleep_overshoot.cpu_us) row.fill(level);
    r.sleep_overshoot.beside_work_us = level;
    r.staging_cooling.cold_gbps = level;
    r.staging_cooling.cooled.fill(level);
    return r;
}

// Every figure of `r` equals `level`.
bool all_equal(const HostRates& r, double level) {
    bool equal = true;
    for (ByteRateCurve HostRates::*curve : kHostRateCurves)
        for (double g : (r.*curve).gbps) equal = equal && g == level;
    for (double figure : {r.cores_available, r.per_sample_ns, r.device_call_us, r.handoff_us, r.wake_us,
                          r.woken_us, r.wake_latency_us, r.gpu_wake_us, r.first_touch_gbps})
        equal = equal && figure == level;
    for (const auto& row : r.sleep_overshoot.us)
        for (double us : row) equal = equal && us == level;
    for (const auto& row : r.sleep_overshoot.cpu_us)
        for (double us : row) equal = equal && us == level;
    equal = equal && r.sleep_overshoot.beside_work_us == level;
    equal = equal && r.staging_cooling.cold_gbps == level;
    for (double cooled : r.staging_cooling.cooled) equal = equal && cooled == level;
    return equal;
}

}  // namespace

TEST_CASE("median_of takes every figure's middle value, one figure at a time") {
    const std::vector<HostRates> three{all_at(9), all_at(1), all_at(4)};
    CHECK(all_equal(median_of(three), 4));
    CHECK(median_of(three).cores == 2);

    // Figures that swing apart in different measurements: each takes its own middle, so the result
    // need not be any one of the measurements.
    std::vector<HostRates> mixed{all_at(4), all_at(4), all_at(4)};
    mixed[0].convert_streaming.gbps[3] = 30;  // one fast convert...
    mixed[1].memcpy_rate.gbps[2] = 1;         // ...and, in another, one slow copy
    mixed[2].convert_streaming.gbps[3] = 20;
    const HostRates m = median_of(mixed);
    CHECK(m.convert_streaming.gbps[3] == 20);
    CHECK(m.memcpy_rate.gbps[2] == 4);
    CHECK(m.sleep_overshoot.us[2][1] == 4);
}

TEST_CASE("median_of one measurement is that measurement, of none the defaults") {
    const std::vector<HostRates> one{all_at(7)};
    CHECK(all_equal(median_of(one), 7));
    CHECK(median_of({}).cores == HostRates{}.cores);
    CHECK(all_equal(median_of({}), 0));
}

}  // namespace pinscope
