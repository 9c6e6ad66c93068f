#include "app/gui/model/presets.h"

#include <span>
#include <stdexcept>

#include "app/gui/model/embedded_presets.h"
#include "core/config/config_json.h"
#include "core/config/knobs.h"

namespace pinscope::gui {
namespace {

std::vector<Preset> parse_presets() {
    std::vector<Preset> presets;
    for (const EmbeddedFile& file : embedded_presets()) {
        try {
            const nlohmann::json json = nlohmann::json::parse(file.text);
            Preset p;
            p.file = file.name;
            p.name = json.at("name").get<std::string>();
            p.description = json.value("description", "");
            p.config = json.at("config");
            config_from_json(p.config);  // rejects unknown keys and wrong types now, not on click
            presets.push_back(std::move(p));
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

PipelineConfig apply_preset(const Preset& preset, const PipelineConfig& current) {
    PipelineConfig config = config_from_json(preset.config, PipelineConfig{});
    keep_machine_knobs(config, current);
    return config;
}

const Preset* find_preset(const std::string& name) {
    for (const Preset& p : builtin_presets())
        if (p.name == name) return &p;
    return nullptr;
}

}  // namespace pinscope::gui
