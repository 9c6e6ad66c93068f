#include "core/device/copy_probe.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/device/device.h"

namespace pinscope {

#if !PINSCOPE_HAVE_CUDA
CopyProbeResult probe_copies(int) {
    throw DeviceError("this build has no CUDA support (the CUDA toolkit was not found when it was built).");
}
#endif

double CopyProbeResult::gbps(CopyDirection direction, HostMemory memory, int mib) const {
    for (const CopyMeasurement& m : copies)
        if (m.direction == direction && m.memory == memory && m.mib == mib) return m.gbps;
    return 0;
}

std::vector<int> implausible_pinned_sizes(const CopyProbeResult& result, CopyDirection direction) {
    std::vector<int> sizes;
    double best_smaller = 0;
    for (int mib : kProbeSizesMiB) {
        const double gbps = result.gbps(direction, HostMemory::pinned, mib);
        if (gbps <= 0) continue;
        if (gbps < 0.9 * best_smaller) sizes.push_back(mib);
        best_smaller = std::max(best_smaller, gbps);
    }
    return sizes;
}

double copy_latency_us(double small_mib, double small_gbps, double large_mib, double large_gbps) {
    if (small_gbps <= 0 || large_gbps <= 0 || large_mib <= small_mib) return 0;
    const double mib = 1024.0 * 1024.0;
    const double t_small = small_mib * mib / (small_gbps * 1e9),
                 t_large = large_mib * mib / (large_gbps * 1e9);
    const double per_mib = (t_large - t_small) / (large_mib - small_mib);
    return std::max(0.0, (t_small - per_mib * small_mib) * 1e6);
}

nlohmann::json calibration_json(const CopyProbeResult& r) {
    nlohmann::json bandwidth = nlohmann::json::object();
    auto round2 = [](double x) { return std::round(x * 100) / 100; };
    for (const CopyMeasurement& m : r.copies)
        bandwidth[fmt::format("{}_{}_{}MB", m.direction == CopyDirection::h2d ? "h2d" : "d2h",
                              host_memory_name(m.memory), m.mib)] = round2(m.gbps);
    bandwidth["bidir_total_GBps"] = round2(r.bidir_total_gbps);
    bandwidth["host_memcpy_64MB_GBps"] = round2(r.host_memcpy_gbps);
    auto round4 = [](double x) { return std::round(x * 1e4) / 1e4; };
    if (r.pin_host_alloc_256MB_s > 0) bandwidth["pin_host_alloc_256MB_s"] = round4(r.pin_host_alloc_256MB_s);
    if (r.pin_huge_pages_256MB_s > 0) bandwidth["pin_huge_pages_256MB_s"] = round4(r.pin_huge_pages_256MB_s);
    nlohmann::json j;
    j["format"] = kCalibrationFormat;
    j["name"] = r.name;
    j["measured_on"] = r.measured_on;
    j["copy_engines"] = r.copy_engines;
    j["copy_latency_us"] = round2(r.copy_latency_us);
    if (r.pageable_copy_latency_us > 0) j["pageable_copy_latency_us"] = round2(r.pageable_copy_latency_us);
    if (r.host_call_us > 0) j["host_call_us"] = round2(r.host_call_us);
    if (r.context_create_s > 0) j["context_create_s"] = round4(r.context_create_s);
    if (r.device_alloc_16MB_s > 0) j["device_alloc_16MB_s"] = round4(r.device_alloc_16MB_s);
    if (r.normalize_u8_gbps > 0) {
        j["normalize_u8_GBps"] = round2(r.normalize_u8_gbps);
        j["normalize_latency_us"] = round2(r.normalize_latency_us);
    }
    j["copy_bandwidth_GBps"] = bandwidth;
    if (!r.pageable_h2d_staging.empty()) {
        nlohmann::json points = nlohmann::json::array();
        for (const Calibration::StagingPoint& point : r.pageable_h2d_staging)
            points.push_back({{"bytes", point.bytes},
                              {"driver_us", round2(point.driver_us)},
                              {"memcpy_us", round2(point.memcpy_us)}});
        j["pageable_h2d_staging"] = points;
    }
    const auto write_shares = [&](const char* key, const char* share_key,
                                  const std::vector<Calibration::HostWriteShare>& curve) {
        if (curve.empty()) return;
        nlohmann::json shares = nlohmann::json::array();
        for (const Calibration::HostWriteShare& point : curve)
            shares.push_back({{"host_write_GBps", round2(point.host_write_gbps)},
                              {share_key, std::round(point.share * 1000) / 1000}});
        j[key] = shares;
    };
    write_shares("h2d_under_host_writes", "h2d_share", r.h2d_under_host_writes);
    write_shares("bidir_under_host_writes", "bidir_share", r.bidir_under_host_writes);
    j["notes"] = {
        "written by `pinscope probe`; sizes are MiB, bandwidths 1e9 bytes/s, medians of repeated copies",
        "pinned copies: cudaMemcpyAsync from cudaHostAlloc memory; pageable: from ordinary malloc'd memory",
        "bidir_total: one H2D and one D2H of 256 MiB each on two streams at once, both directions summed "
        "(the best of three points in the probe)",
        "host_memcpy: one thread copying 64 MiB",
        "copy_latency_us: fixed cost of one copy, from the 1 MiB and 16 MiB pinned H2D figures",
        "pageable_copy_latency_us: a 4 KiB pageable copy from the call to the end of a stream sync, both "
        "directions' median averaged: what a blocking pageable copy costs the caller beyond its bytes",
        "host_call_us: the calling thread's time per device call as the train loop makes them (event query, "
        "4 KiB pinned copy in, kernel launch, copy out, event record), through pinscope's CUDA device with "
        "CUPTI on; the mean of 10 draws 250 ms apart, as a run meets it",
        "pageable_h2d_staging: a pageable H2D copy of `bytes` from the call until it returns (the driver's "
        "staging) against one host thread copying the same bytes through a 2 MiB buffer (the simulated GPU's "
        "staging), each of a source another thread has just written, medians of 60 interleaved",
        "copies read (and write) a different part of a 256 MiB buffer each time; a pageable source is first "
        "written by another thread, as a worker collates a batch just before the train loop copies it",
        "pin_*_256MB_s: seconds to pin 256 MiB with cudaHostAlloc, and with huge pages + cudaHostRegister",
        "context_create_s: a fresh process's first CUDA call (the driver's start and the context), the "
        "median of three; device_alloc_16MB_s: the probe's first cudaMalloc, of 16 MiB",
        "normalize_u8_GBps: the GPU's kernel turning uint8 pixels into normalised float32 (transfer_dtype "
        "uint8), pixels per second, from 1 and 48 MiB of pixels; normalize_latency_us its fixed cost",
        "h2d_under_host_writes: the share of its idle rate a 64 MiB pinned H2D copy keeps while host threads "
        "write their own memory with streaming stores at host_write_GBps between them (12 threads at most, "
        "paced to 20, 35, 50, 65, 80 and 100 GB/s, then flat out; each share the median of three, each "
        "against an idle figure measured just before)",
        "bidir_under_host_writes: the same for one H2D and one D2H of 64 MiB at once, the two directions' "
        "bytes over the time until both end against the idle pair's (the pair's own D2H is not in "
        "host_write_GBps)"};
    return j;
}

}  // namespace pinscope
