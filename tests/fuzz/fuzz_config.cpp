// Fuzzes the config reader as load_config uses it: JSON text that parses is either a config (a bare
// one or a preset file's) or a ConfigFileError. A config that loads and validates must also save and
// load back the same, as the app's Save config and Open config do.
#include <cstdint>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "core/config/config_json.h"
#include "core/config/presets.h"
#include "core/config/validate.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace pinscope;
    const nlohmann::json json = nlohmann::json::parse(data, data + size, nullptr, false);
    if (json.is_discarded()) return 0;  // load_config's parse error, tested by the unit tests
    PipelineConfig config;
    try {
        config = config_from_json(is_preset_json(json) ? json["config"] : json);
    } catch (const ConfigFileError&) {
        return 0;
    }
    if (!validate(config).ok()) return 0;
    const nlohmann::json saved = config_to_json(config);
    if (config_from_json(saved) != config) std::abort();
    return 0;
}
