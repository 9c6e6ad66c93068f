#pragma once
// What every JSON file reader's fuzzer does first, as the readers themselves do (core/files/json_text.h):
// the bytes as JSON text, or nothing when they are not (a JsonTextError, which its unit tests cover).
#include <cstdint>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/files/json_text.h"

namespace pinscope {

inline std::optional<nlohmann::json> fuzz_json(const uint8_t* data, size_t size) {
    try {
        return parse_json_text(std::string_view(reinterpret_cast<const char*>(data), size));
    } catch (const JsonTextError&) {
        return std::nullopt;
    }
}

}  // namespace pinscope
