#include "core/config/presets.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include <fmt/format.h>

#include "core/config/config_json.h"
#include "core/config/embedded_presets.h"
#include "core/config/file_slug.h"
#include "core/config/knobs.h"
#include "core/config/validate.h"

namespace pinscope {
namespace {

std::string text(const nlohmann::json& j, const char* key, bool required) {
    if (!j.contains(key) && !required) return {};
    if (!j.contains(key) || !j[key].is_string())
        throw std::invalid_argument(fmt::format("\"{}\" should be a string", key));
    return j[key].get<std::string>();
}

Preset parse(const nlohmann::json& json, const std::string& file) {
    if (!json.is_object()) throw std::invalid_argument("a preset is a JSON object");
    Preset p;
    p.file = file;
    p.slug = slug_of(file);
    p.name = text(json, "name", true);
    p.description = text(json, "description", false);
    p.look_at = text(json, "look_at", false);
    p.look_at_shows = json.value("look_at_shows", nlohmann::json::array());
    if (!p.look_at_shows.is_array())
        throw std::invalid_argument("\"look_at_shows\" should be a list of {\"kind\", \"on\", \"absent\"}");
    for (const nlohmann::json& shows : p.look_at_shows)
        if (!shows.is_object() || !shows.contains("kind") || !shows["kind"].is_string() ||
            (shows.contains("on") && !shows["on"].is_string()) ||
            (shows.contains("absent") && !shows["absent"].is_boolean()))
            throw std::invalid_argument(
                "\"look_at_shows\" should be a list of {\"kind\": SPAN KIND, \"on\": LANE ROLE, \"absent\": "
                "true or false}");
    if (json.contains("view_seconds")) {
        const nlohmann::json& v = json["view_seconds"];
        if (!v.is_number() || !(v.get<double>() >= 0 && v.get<double>() <= 3600))
            throw std::invalid_argument("\"view_seconds\" should be a number of seconds from 0 to 3600");
        p.view_seconds = v.get<double>();
    }
    if (!json.contains("config") || !json["config"].is_object())
        throw std::invalid_argument("\"config\" should be an object of knobs");
    p.config = json["config"];
    // As strict as the command line: unknown keys and wrong types, then ranges and rules.
    const PipelineConfig config = config_from_json(p.config);
    const Validation validation = validate(config);
    if (!validation.ok()) throw std::invalid_argument(describe(validation.errors.front()));
    p.promise = json.contains("promise") ? json["promise"] : nlohmann::json();
    return p;
}

std::vector<Preset> parse_presets() {
    std::vector<Preset> presets;
    for (const EmbeddedFile& file : embedded_presets()) {
        try {
            presets.push_back(parse_preset(nlohmann::json::parse(file.text), file.name));
        } catch (const std::exception& e) {
            throw std::runtime_error(e.what());
        }
    }
    return presets;
}

}  // namespace

Preset parse_preset(const nlohmann::json& json, const std::string& file) {
    try {
        return parse(json, file);
    } catch (const std::invalid_argument& e) {
        throw std::invalid_argument("preset " + file + ": " + e.what());
    } catch (const ConfigFileError& e) {
        throw std::invalid_argument("preset " + file + ": " + e.what());
    }
}

const std::vector<Preset>& builtin_presets() {
    static const std::vector<Preset> presets = parse_presets();
    return presets;
}

const Preset* find_preset(std::string_view name) {
    // A preset is also found by its display name ("Tuned loader").
    return find_by_file_name(builtin_presets(), name, [](const Preset& p, const std::string& wanted) {
        return lower(p.name) == wanted;
    });
}

std::string preset_slugs() {
    return slug_list(builtin_presets());
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
