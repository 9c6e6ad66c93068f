#include "app/gui/model/sweep_heatmap.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace pinscope::gui {

namespace {

std::vector<std::string> value_labels(const SweepAxis& axis) {
    std::vector<std::string> labels;
    for (size_t v = 0; v < axis.values.size(); ++v) {
        const std::string label = axis.label(v);
        labels.push_back(label.substr(axis.knob->key.size() + 1));
    }
    return labels;
}

HeatmapCell cell_of(const SweepOutcome& outcome, size_t cell) {
    const SweepGrid& grid = outcome.grid;
    HeatmapCell c;
    const size_t config = grid.cell_config[cell];
    if (config == SweepGrid::kNotRun) {
        c.problem = grid.problems[cell];
        return c;
    }
    c.result = config;
    if (config >= outcome.results.size()) {
        c.problem = "not run yet";
        return c;
    }
    const SweepResult& r = outcome.results[config];
    if (!r.ran)
        c.problem = r.error;
    else
        c.samples_per_s = r.samples_per_s;
    return c;
}

}  // namespace

SweepHeatmap make_heatmap(const SweepOutcome& outcome, size_t x, std::optional<size_t> y) {
    const SweepGrid& grid = outcome.grid;
    SweepHeatmap map;
    map.x_knob = grid.axes[x].knob->key;
    map.x_labels = value_labels(grid.axes[x]);
    if (y) {
        map.y_knob = grid.axes[*y].knob->key;
        map.y_labels = value_labels(grid.axes[*y]);
    } else {
        map.y_labels = {""};
    }
    std::optional<size_t> panel_axis;
    for (size_t a = 0; a < grid.axes.size() && !panel_axis; ++a)
        if (a != x && (!y || a != *y)) panel_axis = a;
    const size_t panels = panel_axis ? grid.axes[*panel_axis].values.size() : 1;

    const std::optional<size_t> best = best_result(outcome.results);
    std::vector<size_t> tied = tied_results(outcome.results);
    if (tied.size() < 2) tied.clear();
    map.low = slowest_samples_per_s(outcome.results);
    for (const SweepResult& r : outcome.results)
        if (r.ran) map.high = std::max(map.high, r.samples_per_s);

    for (size_t p = 0; p < panels; ++p) {
        HeatmapPanel panel;
        if (panel_axis) panel.title = grid.axes[*panel_axis].label(p);
        for (size_t row = 0; row < map.rows(); ++row)
            for (size_t column = 0; column < map.columns(); ++column) {
                std::vector<size_t> at(grid.axes.size(), 0);
                at[x] = column;
                if (y) at[*y] = row;
                if (panel_axis) at[*panel_axis] = p;
                HeatmapCell c = cell_of(outcome, grid.cell_at(at));
                const double range = map.high - map.low;
                if (c.problem.empty()) c.shade = range > 0 ? (c.samples_per_s - map.low) / range : 1.0;
                c.best = best && c.result == *best;
                c.tied = !c.best && std::ranges::count(tied, c.result) > 0;
                for (const HeatmapCell& earlier : panel.cells)
                    c.repeats =
                        c.repeats || (c.result != HeatmapCell::kNoResult && earlier.result == c.result);
                panel.cells.push_back(std::move(c));
            }
        map.panels.push_back(std::move(panel));
    }
    return map;
}

Rgb heat_colour(double shade) {
    // viridis at 0, 0.25, 0.5, 0.75 and 1
    constexpr std::array<Rgb, 5> kStops{
        {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}}};
    const double t = std::clamp(std::isfinite(shade) ? shade : 0.0, 0.0, 1.0) * (kStops.size() - 1);
    const size_t i = std::min(static_cast<size_t>(t), kStops.size() - 2);
    const double f = t - static_cast<double>(i);
    auto mix = [f](uint8_t a, uint8_t b) { return static_cast<uint8_t>(std::lround(a + (b - a) * f)); };
    const Rgb a = kStops[i], b = kStops[i + 1];
    return {mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b)};
}

}  // namespace pinscope::gui
