#pragma once
// What a sweep runs: knobs of the knob table, each with the values to try, over a base config. A knob's
// values are written as a spec: "0..8" (every integer), "1..16:2" (a step), "1,2,4" (a list), "both" (a
// boolean), "all" (a choice's every value), "unset" (an optional knob left to its default), or one
// value. Expanding the axes gives the grid of every combination; PyTorch's cross-knob rules
// (validate.h) decide what each cell of it runs:
// - a knob that means nothing in a cell (Knob::applies: prefetch_factor with num_workers=0, pin_mode
//   without pin_memory) takes its default there, so cells that differ only in it run one config;
// - a cell that still breaks a rule (chunks beyond a batch's bytes) runs nothing and keeps the message.
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config/knobs.h"

namespace pinscope {

// A spec that cannot be swept. what() reads "num_workers 0..300: num_workers should be between 0 and
// 256; use fewer workers."; problem() is the part after the colon, naming the knob and the fix.
class SweepSpecError : public std::runtime_error {
  public:
    SweepSpecError(std::string_view key, std::string_view spec, const std::string& problem);
    const std::string& key() const { return key_; }
    const std::string& spec() const { return spec_; }
    const std::string& problem() const { return problem_; }

  private:
    std::string key_, spec_, problem_;
};

// One swept knob and its values (JSON of the knob's type, null for unset), in ascending order for numbers
// and in the table's order for booleans (false, true) and choices.
struct SweepAxis {
    const Knob* knob = nullptr;
    std::vector<nlohmann::json> values;

    // "num_workers=4": the value as messages, tables and the progress line show it.
    std::string label(size_t value) const;
};

// Every value one knob may take in a sweep; more is a typo ("0..1000000") rather than an experiment.
constexpr size_t kMaxSweepValues = 256;
// Every cell of a grid; each runs for seconds, so a larger grid is not meant.
constexpr size_t kMaxSweepCells = 4096;

// Parses `spec` for `knob`. Throws SweepSpecError for a malformed spec, a value of the wrong type, one
// out of the knob's range (with the knob's range message), or too many values.
SweepAxis parse_sweep_axis(const Knob& knob, std::string_view spec);

// The knobs that do not apply in `config` (Knob::applies) set to their defaults: what the cell of a grid
// runs. Also what the app applies when a cell is clicked, so a config it takes is a valid one.
void reset_inapplicable_knobs(PipelineConfig& config);

struct SweepGrid {
    PipelineConfig base;
    std::vector<SweepAxis> axes;  // in the knob table's order
    // The distinct configs that run, in grid order (the last axis varies fastest): sorted by the axes.
    std::vector<PipelineConfig> configs;
    // Per cell, in grid order: the index in `configs` it runs, or kNotRun with its message in `problems`.
    static constexpr size_t kNotRun = static_cast<size_t>(-1);
    std::vector<size_t> cell_config;
    std::vector<std::string> problems;  // per cell: validate()'s first error, "" for a cell that runs
    size_t cells() const { return cell_config.size(); }
    // Cells that run another cell's config: a knob that did not apply in them.
    size_t collapsed() const;
    // Cells that break a rule and run nothing.
    size_t invalid() const;
    // The value index of each axis at cell `cell`.
    std::vector<size_t> coordinates(size_t cell) const;
    // The cell at these value indices (one per axis).
    size_t cell_at(const std::vector<size_t>& coordinates) const;
    // "num_workers=4 prefetch_factor=2 pin_memory=true": the swept knobs' values in `config`.
    std::string label(const PipelineConfig& config) const;
    // "4 num_workers x 4 prefetch_factor x 2 pin_memory"
    std::string shape() const;
};

// What a sweep over batch_size holds fixed, said before it runs: the GPU's compute per batch (kernel_us, and
// kernel_us_per_sample x batch_size). With kernel_us alone every batch costs the GPU the same, so bigger
// batches get their extra samples' compute free and win; the note says so. Empty when batch_size is not
// swept or when the compute is swept with it.
std::string held_fixed_note(const SweepGrid& grid);

// The index in grid.axes of the knob `key`, or nullopt when it is not swept.
std::optional<size_t> axis_of(const SweepGrid& grid, std::string_view key);

// The grid of `axes` over `base`. Axes of one knob merge (the later wins); they are ordered as the knob
// table is. Throws SweepSpecError when the grid is larger than kMaxSweepCells.
SweepGrid expand_sweep(const PipelineConfig& base, std::vector<SweepAxis> axes);

}  // namespace pinscope
