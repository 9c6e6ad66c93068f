#include "app/gui/model/metric_tiles.h"

#include <fmt/format.h>

#include "core/units/units.h"

namespace pinscope::gui {
namespace {

constexpr MetricTile kTiles[] = {
    {"samples/s", "Samples whose kernels finished, per second: the average over the last second.",
     &MetricsSample::samples_per_s, TileKind::rate, "888,888/s"},
    {"H2D copying",
     "Host-to-device bandwidth while copies run, over the last second: what pinning changes. The plot's "
     "top is the link's peak.",
     &MetricsSample::h2d_gbps, TileKind::rate, "88.8 GB/s"},
    {"H2D sustained", "Bytes the pipeline moved to the device over the last second, per second.",
     &MetricsSample::h2d_sustained_gbps, TileKind::rate, "88.8 GB/s"},
    {"compute busy",
     "Share of the last second a kernel ran: the compute engine's, what nvidia-smi calls GPU utilization.",
     &MetricsSample::gpu_busy, TileKind::share, "100%"},
    {"copy busy", "Share of the last second a copy engine moved bytes, either way.",
     &MetricsSample::copy_busy, TileKind::share, "100%"},
    {"overlap", "Share of kernel time, over the last second, with a copy running at the same time.",
     &MetricsSample::overlap, TileKind::share, "100%"},
    {"GPU idle",
     "Share of the last second no kernel ran, by what the train loop did then: waiting for the loader "
     "(grey), "
     "staging pageable copies (red), blocked on the GPU (slate), or anything else.",
     &MetricsSample::gpu_idle, TileKind::idle, "100%"},
    {"outstanding",
     "Batches dispatched to workers and not yet handed to the train loop, now (at most prefetch_factor * "
     "num_workers).",
     &MetricsSample::outstanding, TileKind::count_level, "88 now"},
    {"reorder depth", "Batches that arrived early and wait in the reorder buffer, now.",
     &MetricsSample::reorder_depth, TileKind::count_level, "88 now"},
    {"pinned memory", "Page-locked host memory the pipeline's pools hold, now.", &MetricsSample::pinned_bytes,
     TileKind::bytes_level, "888.8 MiB now"},
};

}  // namespace

std::span<const MetricTile> metric_tiles() {
    return kTiles;
}

std::string tile_value(const MetricTile& tile, const MetricsSample& sample, bool paused) {
    const double v = sample.*tile.field;
    // A paused pipeline moves nothing: a rate or a share of the last second would describe the run before
    // the pause as if it went on. Levels (memory held, batches in flight) stay true while it waits.
    const bool over_time =
        tile.kind == TileKind::rate || tile.kind == TileKind::share || tile.kind == TileKind::idle;
    if (paused && over_time) return "PAUSED";
    switch (tile.kind) {
        case TileKind::rate:
            return tile.field == &MetricsSample::samples_per_s ? format_count(v) + "/s" : format_gbps(v);
        case TileKind::share:
        case TileKind::idle:
            return format_share(v);
        case TileKind::count_level:
            return fmt::format("{:.0f} now", v);
        case TileKind::bytes_level:
            return format_bytes(v) + " now";
    }
    return {};
}

}  // namespace pinscope::gui
