// The probe's calibration file: what `pinscope probe` writes loads as a calibration for the simulated
// GPU. The measuring part needs a GPU; without one it says "skipped: no CUDA device".
#include <doctest/doctest.h>

#include <chrono>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/device/copy_probe.h"
#include "core/device/device_call_cost.h"
#include "core/device/device_factory.h"
#include "core/device/gpu_inventory.h"
#include "core/device/sim/sim_device.h"
#include "tests/leak_checks.h"
#include "tests/within.h"

using namespace pinscope;
using namespace pinscope::testing;

namespace {

CopyProbeResult made_up_result() {
    CopyProbeResult r;
    r.name = "test GPU, PCIe Gen4 x16";
    r.measured_on = r.name + ", today";
    r.copy_engines = 2;
    for (CopyDirection direction : {CopyDirection::h2d, CopyDirection::d2h})
        for (HostMemory memory : {HostMemory::pinned, HostMemory::pageable})
            for (int mib : kProbeSizesMiB)
                r.copies.push_back(
                    {direction, memory, mib, (memory == HostMemory::pinned ? 25.0 : 8.0) - 1.0 / mib});
    r.bidir_total_gbps = 40;
    r.host_memcpy_gbps = 9;
    r.copy_latency_us = 4;
    r.pageable_copy_latency_us = 20;
    r.h2d_under_host_writes = {{80, 0.97}, {20, 1.0}, {140, 0.5}};  // in the order measured, not sorted
    r.bidir_under_host_writes = {{80, 0.6}, {20, 0.9}};
    r.pageable_h2d_staging = {{1 << 20, 40, 20}, {4096, 3, 0.5}, {2 << 20, 100, 60}};  // not sorted either
    return r;
}

}  // namespace

TEST_CASE("the fixed cost of a copy follows from two sizes' bandwidths") {
    // 1 MiB at 44.2 GB/s and 16 MiB at 52.83 GB/s: the H100's figures give about 3.9 us.
    CHECK(copy_latency_us(1, 44.2, 16, 52.83) == doctest::Approx(3.9).epsilon(0.05));
    CHECK(copy_latency_us(1, 50, 16, 50) == doctest::Approx(0).epsilon(1e-9));  // no latency: flat bandwidth
    CHECK(copy_latency_us(16, 50, 1, 40) == 0);  // sizes in the wrong order: no answer
}

TEST_CASE("a probe's calibration file loads as a calibration with the same figures") {
    const CopyProbeResult r = made_up_result();
    const Calibration c = calibration_from_json(calibration_json(r), "probe");
    CHECK(c.name == r.name);
    CHECK(c.copy_engines == 2);
    CHECK(c.copy_latency_us == doctest::Approx(4));
    CHECK(c.pageable_copy_latency_us == doctest::Approx(20));
    // A pageable copy of a few KiB costs the pageable latency, a pinned one the pinned latency.
    CHECK(c.d2h_pageable.seconds(4096) * 1e6 == doctest::Approx(20).epsilon(0.05));
    CHECK(c.d2h_pinned.seconds(4096) * 1e6 == doctest::Approx(4).epsilon(0.05));
    CHECK(c.bidir_total_gbps == doctest::Approx(40));
    CHECK(c.host_memcpy_gbps == doctest::Approx(9));
    REQUIRE(c.h2d_under_host_writes.size() == 3);
    CHECK(c.h2d_under_host_writes.front().host_write_gbps == doctest::Approx(20));  // sorted by load
    CHECK(c.h2d_share_under_writes(140) == doctest::Approx(0.5));
    REQUIRE(c.bidir_under_host_writes.size() == 2);
    CHECK(c.bidir_share_under_writes(50) == doctest::Approx(0.75));  // sorted, halfway between the two
    CHECK(c.h2d_pinned.gbps(256.0 * (1 << 20)) ==
          doctest::Approx(r.gbps(CopyDirection::h2d, HostMemory::pinned, 256)).epsilon(0.01));
    CHECK(c.d2h_pageable.gbps(64.0 * (1 << 20)) ==
          doctest::Approx(r.gbps(CopyDirection::d2h, HostMemory::pageable, 64)).epsilon(0.01));
    REQUIRE(c.pageable_h2d_staging.size() == 3);
    CHECK(c.pageable_h2d_staging.front().bytes == 4096);  // sorted by size
}

TEST_CASE("the driver's pageable staging over the host's memcpy is charged by size, as the probe measured") {
    const Calibration c = calibration_from_json(calibration_json(made_up_result()), "probe");
    // driver - memcpy: 2.5 us at 4 KiB, 20 at 1 MiB, 40 at 2 MiB; linear between, the nearest beyond.
    CHECK(c.pageable_h2d_staging_extra_us(4096) == doctest::Approx(2.5));
    CHECK(c.pageable_h2d_staging_extra_us(100) == doctest::Approx(2.5));
    CHECK(c.pageable_h2d_staging_extra_us(1.5 * (1 << 20)) == doctest::Approx(30));
    CHECK(c.pageable_h2d_staging_extra_us(96.0 * (1 << 20)) == doctest::Approx(40));
    // A file from before the probe measured it: the fixed cost of a pageable copy over a pinned one.
    CopyProbeResult old = made_up_result();
    old.pageable_h2d_staging.clear();
    const Calibration before = calibration_from_json(calibration_json(old), "an older probe");
    CHECK(before.pageable_h2d_staging_extra_us(4096) == doctest::Approx(20 - 4));
    CHECK(before.pageable_h2d_staging_extra_us(2 << 20) == doctest::Approx(20 - 4));
    // The driver faster than the memcpy at some size (the host's noise) costs nothing there, not less.
    CopyProbeResult faster = made_up_result();
    faster.pageable_h2d_staging = {{2 << 20, 150, 160}};
    CHECK(calibration_from_json(calibration_json(faster), "probe").pageable_h2d_staging_extra_us(2 << 20) ==
          0);
}

TEST_CASE("the simulated GPU charges the caller host_call_us for every copy, launch and record") {
    CopyProbeResult r = made_up_result();
    r.host_call_us = 500;
    Trace trace;
    SimDevice device(trace, calibration_from_json(calibration_json(r), "probe"));
    // Its own bookkeeping is part of a call's cost: it spins for the rest.
    CHECK(device.call_charge_us() <= 500);
    CHECK(device.call_charge_us() >= 0);
    Stream stream = device.create_stream(0);
    Event event = device.create_event();
    KernelWork work;
    const TimeNs start = now_ns();
    for (int i = 0; i < 5; ++i) device.launch_kernel(work, stream);
    device.record(event, stream);
    // A lower bound only: the calls spin for at least that long, however busy the machine is.
    CHECK(now_ns() - start >= static_cast<TimeNs>(6 * device.call_charge_us() * kNsPerUs));
    device.synchronize();
}

TEST_CASE("the device call cost measured on the simulated GPU gives back the host_call_us it charges") {
    CopyProbeResult r = made_up_result();
    r.host_call_us = 50;
    Trace trace;
    SimDevice device(trace, calibration_from_json(calibration_json(r), "probe"));
    const double us = time_device_call_us(device, /*batches=*/40, /*rounds=*/3);
    CHECK(us >=
          device.call_charge_us());  // every call spins that long; the time is divided by the calls made
    check_nothing_held(device.resources());  // and it gives back all it took
}

TEST_CASE("the probe's call cost is the mean of draws a pause apart, as a run of seconds meets it") {
    // Two levels from one draw to the next, as one H200 host's calls had: the mean, not either level
    // (a median of an even count would pick one of them).
    const std::vector<double> levels{3.4, 5.0, 3.4, 5.0};
    size_t drawn = 0;
    const TimeNs start = now_ns();
    const double mean = mean_of_draws(4, std::chrono::milliseconds(20), [&] { return levels.at(drawn++); });
    CHECK(drawn == 4);
    CHECK(mean == doctest::Approx(4.2));
    // A pause before every draw but the first: three of them.
    CHECK(now_ns() - start >= 3 * 20 * kNsPerMs);
    CHECK(mean_of_draws(0, std::chrono::milliseconds(20), [] { return 1.0; }) == 0);

    // Through a device: each draw at least what the simulated GPU charges a call.
    CopyProbeResult r = made_up_result();
    r.host_call_us = 5;
    Trace trace;
    SimDevice device(trace, calibration_from_json(calibration_json(r), "probe"));
    CHECK(mean_device_call_us(device, /*draws=*/2, std::chrono::milliseconds(1)) >= device.call_charge_us());
    check_nothing_held(device.resources());
}

TEST_CASE("a PCIe link prints its generation and width, and says when it runs slower now") {
    CHECK(PcieLink{5, 16, 5, 16}.to_string() == "PCIe Gen5 x16");
    CHECK(PcieLink{1, 16, 5, 16}.to_string().find("now Gen1 x16") != std::string::npos);
    CHECK(PcieLink{}.to_string().empty());
}

TEST_CASE("the probe measures this GPU and its file loads into the simulated GPU") {
    if (cuda_device_count() == 0) {
        MESSAGE("skipped: no CUDA device");
        CHECK_THROWS_AS(probe_copies(), DeviceError);
        return;
    }
    const CopyProbeResult r = probe_copies();
    CHECK(r.copies.size() == 16);
    CHECK(r.copy_engines >= 1);
    for (const CopyMeasurement& m : r.copies) CHECK(m.gbps > 0);
    CHECK(r.host_call_us > 0);
    // Larger pinned copies amortise the fixed cost: 256 MiB moves faster than 1 MiB.
    CHECK(r.gbps(CopyDirection::h2d, HostMemory::pinned, 256) >
          r.gbps(CopyDirection::h2d, HostMemory::pinned, 1));
    // Both directions at once move more than one alone.
    CHECK(r.bidir_total_gbps > r.gbps(CopyDirection::h2d, HostMemory::pinned, 256));
    // The host's writes at paced rates, from 20 GB/s, then flat out: the copy keeps a share of its rate.
    REQUIRE(r.h2d_under_host_writes.size() == 7);
    CHECK(r.h2d_under_host_writes.front().host_write_gbps == within(20, 0.1));
    for (const Calibration::HostWriteShare& point : r.h2d_under_host_writes)
        CHECK((point.share > 0 && point.share <= 1));
    // Both directions at once, at the same rates: the pair keeps a share of its idle total.
    REQUIRE(r.bidir_under_host_writes.size() == 7);
    for (const Calibration::HostWriteShare& point : r.bidir_under_host_writes)
        CHECK((point.share > 0 && point.share <= 1));
    const Calibration c = calibration_from_json(calibration_json(r), "probe");
    CHECK(c.h2d_pinned.gbps(64.0 * (1 << 20)) ==
          doctest::Approx(r.gbps(CopyDirection::h2d, HostMemory::pinned, 64)).epsilon(0.01));
}

TEST_CASE("--device auto takes the GPU when there is one and says which it took and why") {
    PipelineConfig config;
    config.device = DeviceChoice::auto_detect;
    Trace trace;
    const DeviceSelection selection = make_device(config, trace);
    if (cuda_device_count() == 0) {
        MESSAGE("no CUDA device: checking the simulated GPU is chosen");
        CHECK(selection.device->info().kind == "sim");
        CHECK(selection.why.find("no CUDA GPU") != std::string::npos);
    } else {
        CHECK(selection.device->info().kind == "cuda");
        CHECK(selection.why.find("GPU spans from") != std::string::npos);
    }
}

TEST_CASE("a pinned figure far below a smaller size's is measured again, a pageable one is not") {
    CopyProbeResult r = made_up_result();  // pinned: 24, 24.94, 24.98, 24.996 GB/s from 1 to 256 MiB
    CHECK(implausible_pinned_sizes(r, CopyDirection::h2d).empty());
    for (CopyMeasurement& m : r.copies) {
        if (m.direction == CopyDirection::h2d && m.memory == HostMemory::pinned && m.mib == 256)
            m.gbps = 16.5;
        if (m.direction == CopyDirection::d2h && m.memory == HostMemory::pinned && m.mib == 64) m.gbps = 23;
        if (m.direction == CopyDirection::d2h && m.memory == HostMemory::pageable && m.mib == 256) m.gbps = 1;
    }
    CHECK(implausible_pinned_sizes(r, CopyDirection::h2d) == std::vector<int>{256});
    CHECK(implausible_pinned_sizes(r, CopyDirection::d2h).empty());  // 8% below: within the noise
}
