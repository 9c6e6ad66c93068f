#include "core/analysis/metrics_diff.h"

#include <cmath>

#include <fmt/format.h>

#include "core/units/units.h"

namespace pinscope {
namespace {

std::string formatted(MetricComparison::Unit unit, double v) {
    switch (unit) {
        case MetricComparison::Unit::rate:
            return fmt::format("{:.1f}", v);
        case MetricComparison::Unit::gbps:
            return format_gbps(v);
        case MetricComparison::Unit::share:
            return format_share(v);
        case MetricComparison::Unit::micros:
            return format_duration(static_cast<TimeNs>(std::llround(v * 1e3)));
    }
    return {};
}

}  // namespace

std::string stated_change(MetricComparison::Unit unit, double a, double b) {
    if (unit == MetricComparison::Unit::share) {
        const double points = (b - a) * 100;
        if (std::abs(points) < 0.5) return "same";
        return fmt::format("{:+.0f} pts", points);
    }
    if (a == b) return "same";
    if (a <= 0) return "new";
    const double ratio = b / a;
    if (std::abs(ratio - 1) < 0.005) return "same";
    if (ratio >= 2 || ratio <= 0.5) return fmt::format("{:.2f}x", ratio);
    return fmt::format("{:+.0f}%", (ratio - 1) * 100);
}

std::vector<MetricComparison> compare_metrics(const Metrics& a, const Metrics& b) {
    using Unit = MetricComparison::Unit;
    std::vector<MetricComparison> rows;
    const auto row = [&](std::string name, std::string short_name, Unit unit, double va, double vb,
                         bool detail = false) {
        rows.push_back({std::move(name), std::move(short_name), unit, va, vb, formatted(unit, va),
                        formatted(unit, vb), stated_change(unit, va, vb), detail});
    };
    row("samples/s", "samples/s", Unit::rate, a.samples_per_s, b.samples_per_s);
    row("H2D while copying", "H2D copying", Unit::gbps, a.h2d_gbps, b.h2d_gbps);
    row("H2D sustained", "H2D sustained", Unit::gbps, a.h2d_sustained_gbps, b.h2d_sustained_gbps);
    row("pageable share of H2D bytes", "pageable H2D", Unit::share, a.pageable_h2d_fraction,
        b.pageable_h2d_fraction);
    row("copy/compute overlap", "overlap", Unit::share, a.overlap, b.overlap);
    row("compute busy", "compute busy", Unit::share, a.gpu_busy, b.gpu_busy);
    row("copy engines busy", "copy busy", Unit::share, a.copy_busy, b.copy_busy);
    row("GPU idle", "GPU idle", Unit::share, a.gpu_idle, b.gpu_idle);
    row("waiting for the loader", "loader", Unit::share, a.idle.loader, b.idle.loader, true);
    row("staging pageable copies", "staging", Unit::share, a.idle.staging, b.idle.staging, true);
    row("waiting for copies (link busy)", "copies", Unit::share, a.idle.copies, b.idle.copies, true);
    row("synchronous waits", "sync", Unit::share, a.idle.sync, b.idle.sync, true);
    row("other", "other", Unit::share, a.idle.other, b.idle.other, true);
    row("batch latency p50", "batch p50", Unit::micros, a.batch_latency.p50_us, b.batch_latency.p50_us);
    return rows;
}

}  // namespace pinscope
