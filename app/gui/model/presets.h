#pragma once
// Presets: named configs that each show one lesson (loading-bound, transfer-bound, pageable vs
// pinned, ...). They are data files, assets/presets/*.json, compiled into the program at build time
// so the app needs no files at run time. A file is {"name", "description", "config": {...}}; the
// config holds only the keys that matter and the rest keep PipelineConfig's defaults.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config/pipeline_config.h"

namespace pinscope::gui {

struct Preset {
    std::string file;  // e.g. "03-loading-bound.json"
    std::string name;
    std::string description;
    nlohmann::json config;  // a subset of PipelineConfig's keys
};

// Every preset compiled in, in file-name order. Throws std::runtime_error naming the file when one
// is malformed (a build with a broken preset should fail its tests, not the user's session).
const std::vector<Preset>& builtin_presets();

// `preset` over the defaults, keeping the machine-specific choices of `current` (device,
// calibration, CUPTI, pinned budget): a preset describes a workload, not a computer.
PipelineConfig apply_preset(const Preset& preset, const PipelineConfig& current);

const Preset* find_preset(const std::string& name);

}  // namespace pinscope::gui
