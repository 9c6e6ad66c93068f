#include "core/config/config_json.h"

#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/config/knobs.h"
#include "core/config/presets.h"
#include "core/files/atomic_file.h"

namespace pinscope {

using nlohmann::json;

json config_to_json(const PipelineConfig& c) {
    json j = json::object();
    for (const Knob& knob : knobs()) j[std::string(knob.key)] = knob.get(c);
    return j;
}

PipelineConfig config_from_json(const json& j, const PipelineConfig& base) {
    if (!j.is_object())
        throw ConfigFileError(R"(a config should be a JSON object of knobs, such as {"num_workers": 4}.)");
    PipelineConfig c = base;
    for (const auto& [key, value] : j.items()) {
        const Knob* knob = find_knob(key);
        if (!knob) {
            std::string known;
            for (const Knob& k : knobs()) known += fmt::format("{}{}", known.empty() ? "" : ", ", k.key);
            throw ConfigFileError(fmt::format("unknown config key \"{}\"; known keys are {}.", key, known));
        }
        if (value.is_null() && !knob->optional)
            throw ConfigFileError(
                fmt::format("config key \"{}\" cannot be null; give it a value or leave it out.", key));
        try {
            knob->set(c, value);
        } catch (const KnobValueError& e) {
            throw ConfigFileError(fmt::format("config key \"{}\" {}.", key, e.what()));
        }
    }
    return c;
}

PipelineConfig load_config(const std::filesystem::path& path, const PipelineConfig& base) {
    std::ifstream in(path);
    if (!in)
        throw ConfigFileError(
            fmt::format("cannot read config file {}: no such file or not readable.", path.string()));
    std::stringstream text;
    text << in.rdbuf();
    json j;
    try {
        j = json::parse(text.str());
    } catch (const json::parse_error& e) {
        // e.byte is 1-based; turn it into a line and column a user can jump to.
        const std::string s = text.str();
        size_t line = 1, column = 1;
        for (size_t i = 0; i + 1 < e.byte && i < s.size(); ++i) {
            if (s[i] == '\n')
                ++line, column = 1;
            else
                ++column;
        }
        throw ConfigFileError(
            fmt::format("config file {} is not valid JSON at line {}, column {}; fix the file there.",
                        path.string(), line, column));
    }
    try {
        return config_from_json(is_preset_json(j) ? j["config"] : j, base);  // a preset file is a config too
    } catch (const ConfigFileError& e) {
        throw ConfigFileError(fmt::format("config file {}: {}", path.string(), e.what()));
    }
}

void save_config(const std::filesystem::path& path, const PipelineConfig& config) {
    write_file_atomically(path, "the config", config_to_json(config).dump(2) + "\n");
}

}  // namespace pinscope
