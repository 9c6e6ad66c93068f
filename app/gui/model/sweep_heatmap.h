#pragma once
// The Sweep window's picture of an outcome: one heatmap per value of a third knob (pin_memory), each a
// grid of the x knob's values by the y knob's, every cell coloured by its samples/s on one scale shared
// by all panels (so two panels compare at a glance), the best config marked, and those tied with it. Layout
// and colours only: the view draws it.
#include <optional>
#include <string>
#include <vector>

#include "app/gui/model/span_palette.h"
#include "core/lab/sweep.h"

namespace pinscope::gui {

struct HeatmapCell {
    static constexpr size_t kNoResult = static_cast<size_t>(-1);
    size_t result = kNoResult;  // the row of outcome.results this cell ran, or kNoResult
    std::string problem;        // why it has no samples/s: a rule it breaks, a failure, "stopped"
    double samples_per_s = 0;
    double shade = 0;      // in [0, 1]: where samples_per_s sits between the scale's low and high
    bool best = false;     // runs the recommended config
    bool tied = false;     // runs a config tied with the fastest, not the recommended one (tied_results)
    bool repeats = false;  // runs the config of another cell of its panel (a knob that does not apply)
};

struct HeatmapPanel {
    std::string title;               // "pin_memory=true", or "" with no panel knob
    std::vector<HeatmapCell> cells;  // row by row: y value index * columns + x value index
};

struct SweepHeatmap {
    std::string x_knob, y_knob;                   // keys; y_knob is "" for a one-knob sweep (one row)
    std::vector<std::string> x_labels, y_labels;  // the values as text
    std::vector<HeatmapPanel> panels;
    double low = 0, high = 0;  // the colour scale's ends: the slowest and fastest samples/s that ran
    size_t columns() const { return x_labels.size(); }
    size_t rows() const { return y_labels.size(); }
    const HeatmapCell& at(size_t panel, size_t column, size_t row) const {
        return panels[panel].cells[row * columns() + column];
    }
};

// The heatmaps of `outcome` with axes `x` and `y` (indices of outcome.grid.axes; y may be absent) and
// one panel per value of the remaining axis, if there is one. A grid of more than three axes shows the
// first value of the others.
SweepHeatmap make_heatmap(const SweepOutcome& outcome, size_t x, std::optional<size_t> y);

// The colour scale, from slow (dark violet) to fast (bright yellow), as viridis runs: brightness rises
// with the value, so it reads in grey and for most colour-blind eyes.
Rgb heat_colour(double shade);

}  // namespace pinscope::gui
