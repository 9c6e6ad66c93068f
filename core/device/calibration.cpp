#include "core/device/calibration.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <regex>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/files/input_file.h"
#include "core/files/json_text.h"

namespace pinscope {

extern const char* const kBuiltinCalibrationJson;  // generated from assets/ at build time

CopyCurve::CopyCurve(std::vector<Point> points, double latency_us)
    : points_(std::move(points)), latency_s_(latency_us * 1e-6) {
    std::sort(points_.begin(), points_.end(),
              [](const Point& a, const Point& b) { return a.bytes < b.bytes; });
}

double CopyCurve::seconds(double bytes) const {
    if (points_.empty() || bytes <= 0) return latency_s_;
    const Point& first = points_.front();
    if (bytes <= first.bytes) {
        const double t_first = first.bytes / (first.gbps * 1e9);
        const double fixed = std::min(latency_s_, t_first);
        return fixed + (t_first - fixed) * (bytes / first.bytes);
    }
    if (bytes >= points_.back().bytes) return bytes / (points_.back().gbps * 1e9);
    auto hi = std::upper_bound(points_.begin(), points_.end(), bytes,
                               [](double b, const Point& p) { return b < p.bytes; });
    auto lo = hi - 1;
    const double f = std::log(bytes / lo->bytes) / std::log(hi->bytes / lo->bytes);
    const double gbps = lo->gbps + f * (hi->gbps - lo->gbps);
    return bytes / (gbps * 1e9);
}

namespace {
// `curve`'s share at `host_write_gbps`: 1 with no load, linear between the measured loads, the last one's
// beyond them.
double share_under_writes(const std::vector<Calibration::HostWriteShare>& curve, double host_write_gbps) {
    double load = 0, share = 1;  // the point before: no load, the whole rate
    for (const Calibration::HostWriteShare& point : curve) {
        if (host_write_gbps <= point.host_write_gbps) {
            const double span = point.host_write_gbps - load;
            const double f = span > 0 ? (std::max(host_write_gbps, load) - load) / span : 1;
            return share + f * (point.share - share);
        }
        load = point.host_write_gbps, share = point.share;
    }
    return share;
}
}  // namespace

double Calibration::h2d_share_under_writes(double host_write_gbps) const {
    return share_under_writes(h2d_under_host_writes, host_write_gbps);
}

double Calibration::bidir_share_under_writes(double host_write_gbps) const {
    return share_under_writes(bidir_under_host_writes, host_write_gbps);
}

double Calibration::pageable_h2d_staging_extra_us(double bytes) const {
    const auto extra = [](const StagingPoint& p) { return std::max(0.0, p.driver_us - p.memcpy_us); };
    if (pageable_h2d_staging.empty()) return std::max(0.0, pageable_copy_latency_us - copy_latency_us);
    if (bytes <= pageable_h2d_staging.front().bytes) return extra(pageable_h2d_staging.front());
    for (size_t i = 1; i < pageable_h2d_staging.size(); ++i) {
        const StagingPoint& lo = pageable_h2d_staging[i - 1];
        const StagingPoint& hi = pageable_h2d_staging[i];
        if (bytes <= hi.bytes) {
            const double f = hi.bytes > lo.bytes ? (bytes - lo.bytes) / (hi.bytes - lo.bytes) : 1;
            return extra(lo) + f * (extra(hi) - extra(lo));
        }
    }
    return extra(pageable_h2d_staging.back());
}

const CopyCurve& Calibration::curve(CopyDirection direction, HostMemory memory) const {
    const bool pinned = memory == HostMemory::pinned;
    if (direction == CopyDirection::h2d) return pinned ? h2d_pinned : h2d_pageable;
    return pinned ? d2h_pinned : d2h_pageable;
}

// The physical range of each figure: what a GPU on any link could measure, with room to spare. A figure
// outside it is a damaged or hand-made file, and the simulated GPU must not run it (a link of 0.001 GB/s
// makes a one-second run take hours; a negative one, never end).
constexpr CalibrationRange kBandwidthRange{0.1, 2000, "GB/s"};  // PCIe Gen1 x1 is 0.25, NVLink-C2C 450 a way
constexpr CalibrationRange kBothWaysRange{0.1, 4000, "GB/s"};
constexpr CalibrationRange kHostCopyRange{0.1, 1000, "GB/s"};
constexpr CalibrationRange kDeviceMemoryRange{1, 100000, "GB/s"};  // a GPU's own memory: HBM3e is 8 TB/s
constexpr CalibrationRange kLatencyRange{0, 1000, "us"};
constexpr CalibrationRange kEngineRange{1, 16, ""};
constexpr CalibrationRange kCopySizeRange{1, 1 << 20, "MiB"};  // 1 MiB to 1 TiB
constexpr CalibrationRange kStartupRange{0, 30, "s"};  // a driver that takes longer to start is broken
constexpr CalibrationRange kHostWriteRange{0, 10000, "GB/s"};  // all of a large server's memory channels
constexpr CalibrationRange kLinkShareRange{0.05, 1, ""};       // what a copy keeps of its idle rate
constexpr size_t kMaxHostWritePoints = 16;                     // a probe writes up to seven
constexpr CalibrationRange kStagingSizeRange{1, 1 << 30, "bytes"};
constexpr CalibrationRange kStagingTimeRange{0, 1e6, "us"};  // 2 MiB at 2 GB/s is 1,000 us
constexpr size_t kMaxStagingPoints = 16;                     // a probe writes five

namespace {

// A list of figures under `key`: at most `max_points` objects, each with every one of `fields`, each field
// within its range; the figures in `fields`' order. Errors name the key and the field.
struct FieldRange {
    const char* name;
    CalibrationRange range;
};
template <size_t N, class Fail, class Checked>
std::vector<std::array<double, N>> figure_list(const nlohmann::json& j, const char* key, size_t max_points,
                                               const std::array<FieldRange, N>& fields, Fail&& fail,
                                               Checked&& checked) {
    std::vector<std::array<double, N>> points;
    if (!j.contains(key)) return points;
    std::string listed, named;  // "\"a\", \"b\"" and "\"a\" and \"b\""
    for (size_t f = 0; f < N; ++f) {
        listed += fmt::format("{}\"{}\"", f == 0 ? "" : ", ", fields[f].name);
        named += fmt::format("{}\"{}\"", f == 0 ? "" : f + 1 == N ? " and " : ", ", fields[f].name);
    }
    const nlohmann::json& list = j[key];
    if (!list.is_array() || list.size() > max_points)
        throw fail(fmt::format("{} should be a list of at most {} {{{}}} objects.", key, max_points, listed));
    for (const nlohmann::json& point : list) {
        if (!point.is_object() ||
            !std::ranges::all_of(fields, [&](const FieldRange& f) { return point.contains(f.name); }))
            throw fail(fmt::format("each of {} should have {}.", key, named));
        std::array<double, N>& figures = points.emplace_back();
        for (size_t f = 0; f < N; ++f)
            figures[f] =
                checked(fmt::format("{}'s {}", key, fields[f].name), point[fields[f].name], fields[f].range);
    }
    return points;
}

// "h2d_under_host_writes": [{"host_write_GBps": 14.2, "h2d_share": 0.99}, ...], and the same of
// "bidir_under_host_writes" with "bidir_share": sorted by load here.
template <class Fail, class Checked>
std::vector<Calibration::HostWriteShare> host_write_shares(const nlohmann::json& j, const char* key,
                                                           const char* share_key, Fail&& fail,
                                                           Checked&& checked) {
    std::vector<Calibration::HostWriteShare> shares;
    for (const auto& [gbps, share] : figure_list<2>(
             j, key, kMaxHostWritePoints,
             {{{"host_write_GBps", kHostWriteRange}, {share_key, kLinkShareRange}}}, fail, checked))
        shares.push_back({gbps, share});
    std::sort(shares.begin(), shares.end(),
              [](const auto& a, const auto& b) { return a.host_write_gbps < b.host_write_gbps; });
    return shares;
}

// "pageable_h2d_staging": [{"bytes": 4096, "driver_us": 3.1, "memcpy_us": 0.4}, ...], sorted by size here.
template <class Fail, class Checked>
std::vector<Calibration::StagingPoint> staging_points(const nlohmann::json& j, Fail&& fail,
                                                      Checked&& checked) {
    std::vector<Calibration::StagingPoint> points;
    for (const auto& [bytes, driver_us, memcpy_us] :
         figure_list<3>(j, "pageable_h2d_staging", kMaxStagingPoints,
                        {{{"bytes", kStagingSizeRange},
                          {"driver_us", kStagingTimeRange},
                          {"memcpy_us", kStagingTimeRange}}},
                        fail, checked))
        points.push_back({bytes, driver_us, memcpy_us});
    std::sort(points.begin(), points.end(), [](const auto& a, const auto& b) { return a.bytes < b.bytes; });
    return points;
}

}  // namespace

Calibration calibration_from_json(const nlohmann::json& j, const std::string& source) {
    auto fail = [&](const std::string& what) -> CalibrationError {
        return CalibrationError(fmt::format("calibration {}: {}", source, what));
    };
    if (!j.is_object() || j.value("format", nlohmann::json()) != kCalibrationFormat)
        throw fail(
            fmt::format("not a calibration file (it has no \"format\": \"{}\"); write one with `pinscope "
                        "probe` on the GPU.",
                        kCalibrationFormat));
    if (!j.contains("copy_bandwidth_GBps") || !j["copy_bandwidth_GBps"].is_object())
        throw fail("no \"copy_bandwidth_GBps\" object; measure one with `pinscope probe` on the GPU.");

    // "copy_engines should be between 1 and 16; measure ...": the knobs' own words for a range.
    auto out_of_range = [&](std::string_view key, const CalibrationRange& range) {
        return fail(
            fmt::format("{} should be between {} and {}{}{}; measure the GPU again with `pinscope probe`.",
                        key, range.min, range.max, range.unit[0] ? " " : "", range.unit));
    };
    auto checked = [&](std::string_view key, const nlohmann::json& value, const CalibrationRange& range) {
        if (!value.is_number() || !(value.get<double>() >= range.min && value.get<double>() <= range.max))
            throw out_of_range(key, range);
        return value.get<double>();
    };
    // Optional fields: the fallback when absent, a CalibrationError naming the key when of another type
    // or out of range (checked before any conversion to int).
    auto text = [&](const char* key, std::string fallback) {
        if (!j.contains(key)) return fallback;
        if (!j[key].is_string()) throw fail(fmt::format("{} should be a string.", key));
        return j[key].get<std::string>();
    };
    auto number = [&](const char* key, double fallback, const CalibrationRange& range) {
        return j.contains(key) ? checked(key, j[key], range) : fallback;
    };
    Calibration c;
    c.source = source;
    c.name = text("name", "unnamed GPU");
    c.measured_on = text("measured_on", "");
    const double engines = number("copy_engines", 3, kEngineRange);
    if (engines != std::floor(engines)) throw out_of_range("copy_engines", kEngineRange);
    c.copy_engines = static_cast<int>(engines);
    c.copy_latency_us = number("copy_latency_us", 0, kLatencyRange);
    c.pageable_copy_latency_us = number("pageable_copy_latency_us", c.copy_latency_us, kLatencyRange);
    c.host_call_us = number("host_call_us", 0, kLatencyRange);
    c.normalize_u8_gbps = number("normalize_u8_GBps", c.normalize_u8_gbps, kDeviceMemoryRange);
    c.normalize_latency_us = number("normalize_latency_us", c.normalize_latency_us, kLatencyRange);

    std::vector<CopyCurve::Point> points[4];  // h2d pinned, h2d pageable, d2h pinned, d2h pageable
    static const std::regex key_pattern(R"((h2d|d2h)_(pinned|pageable)_(\d+)MB)");
    const auto& bw = j["copy_bandwidth_GBps"];
    for (const auto& [key, value] : bw.items()) {
        std::smatch m;
        // Other figures (bidir, host memcpy) are read below. std::regex recurses once per character, so
        // a key thousands of digits long would overflow the stack: no size takes more than 17 digits.
        if (key.size() > 32 || !std::regex_match(key, m, key_pattern)) continue;
        const double gbps = checked(fmt::format("\"{}\"", key), value, kBandwidthRange);
        // A copy of 0 bytes has no bandwidth: the curve could not interpolate from it.
        const double mib = std::stod(m[3]);
        if (mib < kCopySizeRange.min || mib > kCopySizeRange.max)
            throw fail(fmt::format("\"{}\" should be for a copy of at least 1 MB and at most 1 TiB.", key));
        const int slot = (m[1] == "d2h" ? 2 : 0) + (m[2] == "pageable" ? 1 : 0);
        points[slot].push_back({mib * 1024.0 * 1024.0, gbps});
    }
    const char* names[4] = {"h2d_pinned", "h2d_pageable", "d2h_pinned", "d2h_pageable"};
    for (int i = 0; i < 4; ++i)
        if (points[i].empty())
            throw fail(
                fmt::format("no \"{}_<N>MB\" figures; every direction and memory kind needs one.", names[i]));
    c.h2d_pinned = CopyCurve(points[0], c.copy_latency_us);
    c.h2d_pageable = CopyCurve(points[1], c.pageable_copy_latency_us);
    c.d2h_pinned = CopyCurve(points[2], c.copy_latency_us);
    c.d2h_pageable = CopyCurve(points[3], c.pageable_copy_latency_us);

    auto figure = [&](const char* key, double fallback, const CalibrationRange& range) {
        return bw.contains(key) ? checked(fmt::format("\"{}\"", key), bw[key], range) : fallback;
    };
    // Without a measurement, assume the two directions do not slow each other down.
    c.bidir_total_gbps =
        figure("bidir_total_GBps", c.h2d_pinned.points().back().gbps + c.d2h_pinned.points().back().gbps,
               kBothWaysRange);
    c.host_memcpy_gbps = figure("host_memcpy_64MB_GBps", 10.0, kHostCopyRange);
    // Start-up, for a cold start: without figures, a cold start costs nothing beyond a warm one.
    c.context_create_s = number("context_create_s", 0, kStartupRange);
    c.device_alloc_s = number("device_alloc_16MB_s", 0, kStartupRange);
    c.pin_alloc_256MB_s = figure("pin_host_alloc_256MB_s", 0, kStartupRange);
    c.h2d_under_host_writes = host_write_shares(j, "h2d_under_host_writes", "h2d_share", fail, checked);
    c.bidir_under_host_writes = host_write_shares(j, "bidir_under_host_writes", "bidir_share", fail, checked);
    c.pageable_h2d_staging = staging_points(j, fail, checked);
    return c;
}

nlohmann::json calibration_file_json(const std::filesystem::path& path) {
    if (path.empty()) return nlohmann::json::parse(kBuiltinCalibrationJson);
    constexpr size_t kMaxCalibrationBytes = 1 << 20;  // a probe writes about 2 KiB
    std::string text;
    try {
        text = read_input_file(path, kMaxCalibrationBytes);
    } catch (const InputFileError& e) {
        throw CalibrationError(fmt::format("cannot read calibration file {}: {}.", path.string(), e.what()));
    }
    try {
        return parse_json_text(text);
    } catch (const JsonTextError& e) {
        throw CalibrationError(fmt::format("calibration file {}: {}; write a new one with `pinscope probe`.",
                                           path.string(), e.what()));
    }
}

Calibration load_calibration(const std::filesystem::path& path) {
    return calibration_from_json(calibration_file_json(path), path.string());
}

const Calibration& builtin_calibration() {
    static const Calibration calibration =
        calibration_from_json(nlohmann::json::parse(kBuiltinCalibrationJson), "built in");
    return calibration;
}

}  // namespace pinscope
