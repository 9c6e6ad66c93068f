#include "core/device/calibration.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <regex>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

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

const CopyCurve& Calibration::curve(CopyDirection direction, HostMemory memory) const {
    const bool pinned = memory == HostMemory::pinned;
    if (direction == CopyDirection::h2d) return pinned ? h2d_pinned : h2d_pageable;
    return pinned ? d2h_pinned : d2h_pageable;
}

Calibration calibration_from_json(const nlohmann::json& j, const std::string& source) {
    auto fail = [&](const std::string& what) -> CalibrationError {
        return CalibrationError(fmt::format("calibration {}: {}", source, what));
    };
    if (!j.is_object() || !j.contains("copy_bandwidth_GBps") || !j["copy_bandwidth_GBps"].is_object())
        throw fail("no \"copy_bandwidth_GBps\" object; measure one with `pinscope probe` on the GPU.");

    // Optional fields: the fallback when absent, a CalibrationError naming the key when of another type
    // or out of range (checked before any conversion to int).
    auto text = [&](const char* key, std::string fallback) {
        if (!j.contains(key)) return fallback;
        if (!j[key].is_string()) throw fail(fmt::format("{} should be a string.", key));
        return j[key].get<std::string>();
    };
    auto number = [&](const char* key, double fallback, double min, double max) {
        if (!j.contains(key)) return fallback;
        if (!j[key].is_number() || j[key].get<double>() < min || j[key].get<double>() > max)
            throw fail(fmt::format("{} should be between {} and {}.", key, min, max));
        return j[key].get<double>();
    };
    Calibration c;
    c.source = source;
    c.name = text("name", "unnamed GPU");
    c.measured_on = text("measured_on", "");
    c.copy_engines = static_cast<int>(number("copy_engines", 3, 1, 16));
    c.copy_latency_us = number("copy_latency_us", 0, 0, 1000);
    c.pageable_copy_latency_us = number("pageable_copy_latency_us", c.copy_latency_us, 0, 1000);
    c.host_call_us = number("host_call_us", 0, 0, 1000);

    std::vector<CopyCurve::Point> points[4];  // h2d pinned, h2d pageable, d2h pinned, d2h pageable
    static const std::regex key_pattern(R"((h2d|d2h)_(pinned|pageable)_(\d+)MB)");
    const auto& bw = j["copy_bandwidth_GBps"];
    for (const auto& [key, value] : bw.items()) {
        std::smatch m;
        // Other figures (bidir, host memcpy) are read below. std::regex recurses once per character, so
        // a key thousands of digits long would overflow the stack: no size takes more than 17 digits.
        if (key.size() > 32 || !std::regex_match(key, m, key_pattern)) continue;
        if (!value.is_number() || value.get<double>() <= 0 || value.get<double>() > 10'000)
            throw fail(fmt::format("\"{}\" should be a positive bandwidth in GB/s.", key));
        // A copy of 0 bytes has no bandwidth: the curve could not interpolate from it.
        const double mib = std::stod(m[3]);
        if (mib < 1) throw fail(fmt::format("\"{}\" should be for a copy of at least 1 MB.", key));
        const int slot = (m[1] == "d2h" ? 2 : 0) + (m[2] == "pageable" ? 1 : 0);
        points[slot].push_back({mib * 1024.0 * 1024.0, value.get<double>()});
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

    auto positive = [&](const char* key, double fallback) {
        if (!bw.contains(key)) return fallback;
        if (!bw[key].is_number() || bw[key].get<double>() <= 0)
            throw fail(fmt::format("\"{}\" should be a positive number.", key));
        return bw[key].get<double>();
    };
    // Without a measurement, assume the two directions do not slow each other down.
    c.bidir_total_gbps =
        positive("bidir_total_GBps", c.h2d_pinned.points().back().gbps + c.d2h_pinned.points().back().gbps);
    c.host_memcpy_gbps = positive("host_memcpy_64MB_GBps", 10.0);
    return c;
}

nlohmann::json calibration_file_json(const std::filesystem::path& path) {
    if (path.empty()) return nlohmann::json::parse(kBuiltinCalibrationJson);
    std::ifstream in(path);
    if (!in) throw CalibrationError(fmt::format("cannot read calibration file {}.", path.string()));
    std::stringstream text;
    text << in.rdbuf();
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text.str());
    } catch (const nlohmann::json::parse_error&) {
        throw CalibrationError(fmt::format(
            "calibration file {} is not valid JSON; write a new one with `pinscope probe`.", path.string()));
    }
    return j;
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
