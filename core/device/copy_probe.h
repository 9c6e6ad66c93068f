#pragma once
// `pinscope probe`: the GPU's copy bandwidths measured in this process with cudaMemcpyAsync, pinned
// (cudaHostAlloc) and pageable (malloc'd, touched) host memory, 1 to 256 MiB, each direction alone
// and both at once. The result is written in the calibration format (calibration.h), so the simulated
// GPU can model any GPU that was measured.
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/device/calibration.h"
#include "core/trace/span.h"

namespace pinscope {

inline constexpr int kProbeSizesMiB[] = {1, 16, 64, 256};

struct CopyMeasurement {
    CopyDirection direction = CopyDirection::h2d;
    HostMemory memory = HostMemory::pinned;
    int mib = 0;
    double gbps = 0;  // median of the repeats, 1e9 bytes/s
};

struct CopyProbeResult {
    std::string name;         // "NVIDIA H100 80GB HBM3, PCIe Gen5 x16"
    std::string measured_on;  // the name, driver, CUDA, host cores and date
    int copy_engines = 0;
    std::vector<CopyMeasurement> copies;
    double bidir_total_gbps = 0;          // one H2D and one D2H of 256 MiB at once, summed; best of 3
    double host_memcpy_gbps = 0;          // one host thread copying 64 MiB
    double copy_latency_us = 0;           // fixed cost per copy, from the pinned H2D figures at 1 and 16 MiB
    double pageable_copy_latency_us = 0;  // a 4 KiB pageable copy as the caller waits for it, both ways
    // A pageable H2D copy's staging by the driver against this host's memcpy through a bounce buffer, at
    // 4 KiB to 2 MiB (Calibration::pageable_h2d_staging).
    std::vector<Calibration::StagingPoint> pageable_h2d_staging;
    double host_call_us =
        0;  // the calling thread's time per device call, the train loop's mix (device_call_cost.h)
    // Pinning 256 MiB, in seconds: the driver's cudaHostAlloc, and huge pages + cudaHostRegister (what
    // the CUDA device uses where it works), with the H2D rate from the latter to show it is as fast.
    double pin_host_alloc_256MB_s = 0, pin_huge_pages_256MB_s = 0;
    double h2d_huge_pages_256MB_gbps = 0;
    // Start-up, in seconds: the process's first CUDA call (the driver's start and the context), and its
    // first cudaMalloc (16 MiB).
    double context_create_s = 0, device_alloc_16MB_s = 0;
    // What share of its idle rate a 64 MiB pinned H2D copy keeps while host threads (up to 12, the cores
    // less two) write memory with streaming stores, as a loader's workers collate, at paced rates between
    // them and then flat out.
    std::vector<Calibration::HostWriteShare> h2d_under_host_writes;
    // The same for one H2D and one D2H of 64 MiB at once, their total against the idle pair's.
    std::vector<Calibration::HostWriteShare> bidir_under_host_writes;
    // The normalize kernel of transfer_dtype uint8: pixels per second (1e9/s) and the fixed cost of one.
    double normalize_u8_gbps = 0, normalize_latency_us = 0;

    double gbps(CopyDirection direction, HostMemory memory, int mib) const;  // 0 when not measured
};

// The sizes (MiB) whose pinned figure in `direction` lies more than 10% below the best of the smaller
// sizes': on an idle link a larger pinned copy moves at least as fast (its fixed cost spread wider), so
// such a figure caught the host busy, and the probe measures it again. (On 2026-11-27 one H100 host's probe
// gave 36.2 GB/s at 256 MiB against 54.8 at 64 MiB, and the simulated GPU ran 96 MiB copies at 49.)
std::vector<int> implausible_pinned_sizes(const CopyProbeResult& result, CopyDirection direction);

// Throws DeviceError when no GPU can be used (or this build has no CUDA), with the reason.
CopyProbeResult probe_copies(int ordinal = 0);

// The calibration file's JSON ("pinscope-calibration/1"); calibration_from_json reads it back.
nlohmann::json calibration_json(const CopyProbeResult& result);

// The fixed cost of a copy from two sizes' bandwidths: t(n) = latency + n / peak.
double copy_latency_us(double small_mib, double small_gbps, double large_mib, double large_gbps);

}  // namespace pinscope
