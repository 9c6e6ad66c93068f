#include "core/config/presets.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "core/config/config_json.h"
#include "core/config/embedded_presets.h"
#include "core/config/file_slug.h"
#include "core/config/knobs.h"

namespace pinscope {
namespace {

Preset parse_preset(const EmbeddedFile& file) {
    const nlohmann::json json = nlohmann::json::parse(file.text);
    Preset p;
    p.file = file.name;
    p.slug = slug_of(file.name);
    p.name = json.at("name").get<std::string>();
    p.description = json.value("description", "");
    p.look_at = json.value("look_at", "");
    p.view_seconds = json.value("view_seconds", 0.0);
    p.promise = json.value("promise", nlohmann::json());
    p.config = json.at("config");
    config_from_json(p.config);  // rejects unknown keys and wrong types now, not on click
    return p;
}

std::vector<Preset> parse_presets() {
    std::vector<Preset> presets;
    for (const EmbeddedFile& file : embedded_presets()) {
        try {
            presets.push_back(parse_preset(file));
        } catch (const std::exception& e) {
            throw std::runtime_error("preset " + std::string(file.name) + ": " + e.what());
        }
    }
    return presets;
}

}  // namespace

const std::vector<Preset>& builtin_presets() {
    static const std::vector<Preset> presets = parse_presets();
    return presets;
}

const Preset* find_preset(std::string_view name) {
    const std::string wanted = lower(name);
    for (const Preset& p : builtin_presets())
        if (lower(p.slug) == wanted || lower(slug_of(p.file)) == wanted || lower(p.name) == wanted ||
            lower(p.file.substr(0, p.file.rfind('.'))) == wanted)
            return &p;
    return nullptr;
}

std::string preset_slugs() {
    std::string all;
    for (const Preset& p : builtin_presets()) all += (all.empty() ? "" : ", ") + p.slug;
    return all;
}

PipelineConfig apply_preset(const Preset& preset, const PipelineConfig& current) {
    PipelineConfig config = config_from_json(preset.config, PipelineConfig{});
    keep_machine_knobs(config, current);
    return config;
}

bool is_preset_json(const nlohmann::json& json) {
    return json.is_object() && json.contains("name") && json.contains("config") && json["config"].is_object();
}

}  // namespace pinscope
