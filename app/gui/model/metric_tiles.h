#pragma once
// The metric tiles, as data: each one's title, what it says when hovered, how its value reads, and the
// widest value it can show (what the layout makes room for). Averages over the last second read as
// numbers; levels read "now", so a tile never looks like the counter lane, which shows the level at the
// view's right edge.
#include <span>
#include <string>

#include "app/gui/model/metrics_history.h"

namespace pinscope::gui {

enum class TileKind { rate, share, bytes_level, count_level, idle };

struct MetricTile {
    const char* title;
    const char* help;
    double MetricsSample::*field;
    TileKind kind;
    const char* widest;  // the widest value it shows, for the layout: "888,888/s"
};

std::span<const MetricTile> metric_tiles();

// "21,312/s", "53.5 GB/s", "17%", "4 now", "477.8 MiB now"; while the pipeline is `paused`, "PAUSED"
// for the tiles that are rates or shares of the last second.
std::string tile_value(const MetricTile& tile, const MetricsSample& sample, bool paused = false);

}  // namespace pinscope::gui
