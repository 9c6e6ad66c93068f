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
#include "core/files/json_text.h"
#include "core/lab/promise.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace pinscope;
    nlohmann::json json;
    try {
        json = parse_json_text(std::string_view(reinterpret_cast<const char*>(data), size));
    } catch (const JsonTextError&) {
        return 0;
    }
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
