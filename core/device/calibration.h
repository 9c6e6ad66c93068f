#pragma once
// Copy-engine figures measured on a real GPU: what the simulated GPU models and what `pinscope probe`
// writes. The file format is JSON (format "pinscope-calibration/1"): keys "{h2d|d2h}_{pinned|pageable}_{N}MB"
// under "copy_bandwidth_GBps" give GB/s (1e9 bytes/s) for copies of N MiB, plus "bidir_total_GBps"
// and "host_memcpy_64MB_GBps". shared/anchors files have this shape too.
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/trace/span.h"

namespace pinscope {

enum class CopyDirection { h2d, d2h };

// What a calibration file says it is; a file without it is refused.
constexpr const char* kCalibrationFormat = "pinscope-calibration/1";

// A figure's physical range, which a file's value must lie in (calibration.cpp lists them).
struct CalibrationRange {
    double min, max;
    const char* unit;
};

class CalibrationError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// Bandwidth of one direction and memory kind as a function of copy size.
class CopyCurve {
  public:
    struct Point {
        double bytes;
        double gbps;
    };
    CopyCurve() = default;
    CopyCurve(std::vector<Point> points, double latency_us);

    // Time a lone copy of `bytes` takes: interpolated in log(size) between measured sizes, flat beyond
    // the largest, and falling linearly to the fixed latency below the smallest.
    double seconds(double bytes) const;
    double gbps(double bytes) const { return bytes / seconds(bytes) * 1e-9; }
    const std::vector<Point>& points() const { return points_; }

  private:
    std::vector<Point> points_;  // sorted by bytes
    double latency_s_ = 0;
};

struct Calibration {
    std::string name;
    std::string measured_on;
    std::string source;  // the file it came from, or "built in"
    int copy_engines = 3;
    double copy_latency_us = 0;
    // The fixed cost of a pageable copy as the calling thread sees it (the driver stages it and the
    // caller waits); pageable copies of a few KiB cost this much. Defaults to copy_latency_us.
    double pageable_copy_latency_us = 0;
    // What issuing one asynchronous copy, launch or event record costs the calling thread. 0: nothing.
    double host_call_us = 0;
    CopyCurve h2d_pinned, h2d_pageable, d2h_pinned, d2h_pageable;
    double bidir_total_gbps = 0;  // both directions at once, summed
    double host_memcpy_gbps = 0;  // one host thread copying memory
    // What a fresh process pays before its first copy (the simulated GPU's cold start models them):
    // its first CUDA call (the driver's start and the context), pinning 256 MiB with cudaHostAlloc (a
    // fresh pinned allocation costs in proportion to its size), and its first cudaMalloc.
    double context_create_s = 0;
    double pin_alloc_256MB_s = 0;
    double device_alloc_s = 0;
    // The GPU's kernel that normalises a uint8 batch into float32 (transfer_dtype uint8): pixels in per
    // second (1e9/s; it reads one byte and writes four a pixel) and a fixed cost per launch. A file without
    // them gets the H100's (the built-in calibration's, measured by `pinscope probe`, which measures them).
    double normalize_u8_gbps = 268.78;
    double normalize_latency_us = 6.4;
    double normalize_seconds(double pixels) const {
        return normalize_latency_us * 1e-6 + pixels / (normalize_u8_gbps * 1e9);
    }
    // What share of its idle rate an H2D copy keeps while the host's cores write memory at a given rate
    // (GB/s): the copy engine reads host memory through the memory controllers the cores write through,
    // and a loader writes every byte it sends. `pinscope probe` measures it with threads streaming stores
    // beside a run of 64 MiB copies; sorted by load. Empty: the host's writes cost the link nothing.
    struct HostWriteShare {
        double host_write_gbps = 0;
        double share = 1;
    };
    std::vector<HostWriteShare> h2d_under_host_writes;
    // The share at `host_write_gbps`: 1 with no load, linear between the measured loads, the last one's
    // beyond them (no guess past what was measured).
    double h2d_share_under_writes(double host_write_gbps) const;
    // What share of bidir_total_gbps one H2D and one D2H at once keep while the cores write memory at a
    // given rate (the pair's own D2H not counted). The pair loses far more to the cores' writes than an
    // H2D copy alone does: on one H200 host 12 threads writing 38 GB/s left an H2D copy alone 95% of its
    // rate and the pair 79% of theirs (the D2H engine's writes, the cores' and the H2D engine's reads all
    // through the same memory controllers). `pinscope probe` measures it as it does the H2D's; sorted by
    // load. Empty (files from before the probe measured it): the D2H's writes count in the H2D copies'
    // load as the cores' do, and the pair keeps bidir_total_gbps.
    std::vector<HostWriteShare> bidir_under_host_writes;
    double bidir_share_under_writes(double host_write_gbps) const;

    // A pageable H2D copy's staging as its caller sees it: the driver's (from the call until it returns,
    // the bytes in its bounce buffers) against this host's own memcpy through one bounce buffer
    // (PageableStaging, what the simulated GPU stages with), both of a source another thread has just
    // written, at sizes up to one chunk; sorted by size. The driver's costs more than a fixed amount
    // over the memcpy, growing with the bytes (one H200 host: 3 us at 4 KiB, 14-20 at 768 KiB, 55-90 at
    // 2 MiB). Empty (files from before the probe measured it): pageable_copy_latency_us less
    // copy_latency_us at every size.
    struct StagingPoint {
        double bytes = 0;
        double driver_us = 0;
        double memcpy_us = 0;
    };
    std::vector<StagingPoint> pageable_h2d_staging;
    // The driver's staging of `bytes` over the memcpy's: linear between the measured sizes, the nearest
    // one's beyond them (a larger copy's further chunks are held to the pageable curve instead).
    double pageable_h2d_staging_extra_us(double bytes) const;

    // The cost of a fresh pinned allocation of `bytes`.
    double pin_alloc_seconds(double bytes) const { return pin_alloc_256MB_s * bytes / (256.0 * 1024 * 1024); }

    const CopyCurve& curve(CopyDirection direction, HostMemory memory) const;
};

// The H100 figures of assets/calibration/h100-sxm-pcie5.json, compiled in.
const Calibration& builtin_calibration();
// Reads a calibration file's JSON: its format, every figure within its physical range (a 0.001 GB/s link
// is refused, not simulated for hours). Throws CalibrationError naming `source` and the key.
Calibration calibration_from_json(const nlohmann::json& json, const std::string& source);
Calibration load_calibration(const std::filesystem::path& path);
// The file's JSON as it is (the built-in file's for an empty path): what a capture keeps of the
// calibration its simulated GPU ran with. Throws CalibrationError.
nlohmann::json calibration_file_json(const std::filesystem::path& path);

}  // namespace pinscope
