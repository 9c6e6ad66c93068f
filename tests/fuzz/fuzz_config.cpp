// Fuzzes the config reader as load_config uses it: bytes are JSON text or a JsonTextError, and JSON is
// either a config (a bare one or a preset file's) or a ConfigFileError. A config that loads and validates
// must also save and load back the same, as the app's Save config and Open config do.
#include <cstdint>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "core/config/config_json.h"
#include "core/config/presets.h"
#include "core/config/validate.h"
#include "tests/fuzz/fuzz_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace pinscope;
    const std::optional<nlohmann::json> parsed = fuzz_json(data, size);
    if (!parsed) return 0;
    const nlohmann::json& json = *parsed;
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
