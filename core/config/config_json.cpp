#include "core/config/config_json.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/config/knobs.h"
#include "core/config/presets.h"
#include "core/files/input_file.h"
#include "core/files/json_text.h"
#include "core/files/output_file.h"

namespace pinscope {

using nlohmann::json;

namespace {
// A config is a few hundred bytes; a preset file a few KiB.
constexpr size_t kMaxConfigFileBytes = 1 << 20;
}  // namespace

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
    std::string text;
    try {
        text = read_input_file(path, kMaxConfigFileBytes);
    } catch (const InputFileError& e) {
        throw ConfigFileError(fmt::format("cannot read config file {}: {}.", path.string(), e.what()));
    }
    json j;
    try {
        j = parse_json_text(text);
    } catch (const JsonTextError& e) {
        throw ConfigFileError(
            fmt::format("config file {}: {}; fix the file there.", path.string(), e.what()));
    }
    try {
        return config_from_json(is_preset_json(j) ? j["config"] : j, base);  // a preset file is a config too
    } catch (const ConfigFileError& e) {
        throw ConfigFileError(fmt::format("config file {}: {}", path.string(), e.what()));
    }
}

void save_config(OutputFile& file, const PipelineConfig& config) {
    file.write(config_to_json(config).dump(2) + "\n");
}

void save_config(const std::filesystem::path& path, const PipelineConfig& config) {
    OutputFile file(path, "the config");
    save_config(file, config);
}

}  // namespace pinscope
