#pragma once
// Sweep: pick two knobs for the axes (num_workers x prefetch_factor at first), their values as sweep
// specs, and whether to try both pin_memory values; Run measures every config of the grid in turn on a
// background thread, with progress. Then a heatmap per pin_memory value: samples/s in each cell on one
// colour scale, the best config marked, a cell's metrics on hover, and a click applies its knobs to the
// live pipeline. The live pipeline is stopped while the sweep runs, so it does not compete for the
// host's cores, and resumes when it ends.
#include <memory>
#include <optional>
#include <string>

#include "app/gui/model/app_state.h"
#include "app/gui/model/sweep_heatmap.h"
#include "app/gui/model/sweep_job.h"

namespace pinscope::gui {

class SweepWindow {
  public:
    SweepWindow();
    ~SweepWindow();

    void open() { open_ = true; }
    void draw(AppState& state, Theme theme);
    // Runs the grid the window shows now, `seconds_each` per config (the --run-sweep of screenshots).
    void run(AppState& state, double seconds_each);
    bool running() const { return job_ != nullptr; }
    // Once, after a sweep that stopped the live pipeline has ended: the app starts it again between frames.
    bool take_resume() { return std::exchange(resume_, false); }
    // Where the predictor plugs in: its samples/s, shown before each run and in the cells' tooltips.
    void set_predictor(SamplesPredictor predictor) { predictor_ = std::move(predictor); }

  private:
    void settings(AppState& state);
    void axis_picker(const char* label, size_t& knob, std::string& spec, size_t other);
    void progress(Theme theme);
    void finish_job();
    void heatmaps(AppState& state, Theme theme);
    void panel(AppState& state, Theme theme, size_t index);
    void cell_tooltip(const HeatmapCell& cell) const;
    void apply_cell(AppState& state, const HeatmapCell& cell);
    void colour_scale(Theme theme) const;
    // "sweep: 32 configs (4 num_workers x ...), 26 distinct ran; ..."
    std::string summary() const;

    bool open_ = false;
    size_t x_knob_, y_knob_;  // indices of knobs()
    std::string x_spec_ = "0..3", y_spec_ = "1..4";
    bool both_pinnings_ = true;
    float seconds_each_ = 1.f;
    SamplesPredictor predictor_;
    std::unique_ptr<SweepJob> job_;
    std::optional<SweepOutcome> outcome_;
    std::optional<SweepHeatmap> heatmap_;
    std::string verdict_;  // tie_verdict() of the outcome, made once when it arrives
    std::string error_, applied_;
    bool paused_live_ = false;
    bool resume_ = false;
};

}  // namespace pinscope::gui
