#pragma once
// Presets: named configs that each show one point (loading-bound, transfer-bound, pageable against
// pinned, ...). They are data files, assets/presets/*.json, compiled in at build time so the program
// needs no files at run time. A file holds:
//   "name", "description"   what it is and what it shows
//   "look_at"               where on the timeline the point is to be seen
//   "look_at_shows"         what look_at names, as checks a test runs against the preset's trace:
//                           [{"kind": "stage", "on": "main"}, {"kind": "pin", "absent": true}, ...]: spans
//                           of that kind on lanes of that role (span.h's kinds, lanes.h's role keys;
//                           no "on": any lane), present, or absent
//   "view_seconds"          the timeline's zoom that shows it
//   "promise"               {"text", "checks": [...]}: what it promises, checked by a test on the
//                           simulated GPU (core/lab/promise.h says how checks read)
//   "config"                the knobs that matter; the rest keep PipelineConfig's defaults
// `pinscope run --preset NAME`, `pinscope gui --preset NAME` and the app's preset menu load them; a
// preset file also loads with --config.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config/pipeline_config.h"

namespace pinscope {

struct Preset {
    std::string file;  // e.g. "03-loading-bound.json"
    std::string slug;  // the file name without its number and extension: "loading-bound"
    std::string name;
    std::string description;
    std::string look_at;
    nlohmann::json look_at_shows;  // an array of {"kind", "on", "absent"}; empty when none
    double view_seconds = 0;       // 0: the app's default zoom
    nlohmann::json promise;        // {"text": ..., "checks": [...]}, or null
    nlohmann::json config;         // a subset of PipelineConfig's keys
};

// Reads a preset file's JSON: its texts, its config as strict as the command line's (known keys and
// types, then ranges and rules). Throws std::invalid_argument naming `file` and what is wrong. Its
// promise is checked where promises are read (core/lab/promise.h: validate_promise).
Preset parse_preset(const nlohmann::json& json, const std::string& file);

// Every preset compiled in, in file-name order. Throws std::runtime_error naming the file when one is
// malformed (a build with a broken preset fails its tests, not a user's session).
const std::vector<Preset>& builtin_presets();

// By slug ("loading-bound"), file stem ("03-loading-bound") or name, ignoring case; nullptr if none.
const Preset* find_preset(std::string_view name);
// "pytorch-defaults, tuned-loader, ...": for messages and --help.
std::string preset_slugs();

// `preset` over the defaults, keeping the knobs of `current` that describe the machine (device,
// calibration, CUPTI, pinned budget): a preset describes a workload, not a computer.
PipelineConfig apply_preset(const Preset& preset, const PipelineConfig& current);

// Whether a JSON document is a preset (it has "name" and a "config" object) rather than a bare config.
bool is_preset_json(const nlohmann::json& json);

}  // namespace pinscope
