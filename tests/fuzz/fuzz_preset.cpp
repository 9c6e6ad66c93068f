// Fuzzes the preset reader: bytes are JSON text or a JsonTextError, JSON a preset or a
// std::invalid_argument, and a preset's promise valid or a std::invalid_argument (validate_promise). Any
// other exception escapes and is a finding. A preset that reads has a config the command line would run.
#include <cstdint>
#include <cstdlib>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "core/config/config_json.h"
#include "core/config/presets.h"
#include "core/config/validate.h"
#include "core/lab/promise.h"
#include "tests/fuzz/fuzz_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace pinscope;
    const std::optional<nlohmann::json> parsed = fuzz_json(data, size);
    if (!parsed) return 0;
    const nlohmann::json& json = *parsed;
    Preset preset;
    try {
        preset = parse_preset(json, "fuzz.json");
    } catch (const std::invalid_argument&) {
        return 0;
    }
    const PipelineConfig config = apply_preset(preset, PipelineConfig{});
    if (!validate(config).ok()) std::abort();
    if (preset.promise.is_null()) return 0;
    try {
        validate_promise(preset.promise, config);
    } catch (const std::invalid_argument&) {
    }
    return 0;
}
