#pragma once
// Values for walking the knob table in tests: for each knob, a valid value other than its default and
// the values just outside its range, as JSON (the knobs' own currency) and as a person would type them.
#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config/knobs.h"

namespace pinscope::testing {

// A valid value that differs from PipelineConfig's default (the top of the slider where there is one).
inline nlohmann::json non_default_value(const Knob& knob) {
    const nlohmann::json standard = knob.get(PipelineConfig{});
    switch (knob.type) {
        case KnobType::boolean:
            return !standard.get<bool>();
        case KnobType::integer:
        case KnobType::number: {
            const double top = knob.slider_high(), pick = std::isfinite(top) ? top : knob.min + 1;
            if (knob.type == KnobType::integer) return static_cast<int64_t>(pick);
            return pick;
        }
        case KnobType::choice:
            for (std::string_view choice : knob.choices())
                if (choice != standard.get<std::string>()) return std::string(choice);
            break;
        case KnobType::shape:
            return "3x32x32";
        case KnobType::text:
            // dataset: a folder the command line can list (the image fuzzer's committed seeds)
            if (knob.key == "dataset") return "folder:" PINSCOPE_TEST_IMAGES;
            return "custom-calibration.json";
    }
    return nullptr;
}

// Values just below and just above the knob's range (none for knobs without one).
inline std::vector<nlohmann::json> out_of_range_values(const Knob& knob) {
    std::vector<nlohmann::json> values;
    if (!knob.has_range()) return values;
    const bool integer = knob.type == KnobType::integer;
    if (std::isfinite(knob.min))
        values.push_back(integer ? nlohmann::json(static_cast<int64_t>(knob.min) - 1)
                                 : nlohmann::json(knob.min - 1));
    if (std::isfinite(knob.max))
        values.push_back(integer ? nlohmann::json(static_cast<int64_t>(knob.max) + 1)
                                 : nlohmann::json(knob.max * 2 + 1));
    return values;
}

// The value as typed on a command line or in a text field.
inline std::string typed(const nlohmann::json& value) {
    if (value.is_string()) return value.get<std::string>();
    if (value.is_number_float()) return knob_number(value.get<double>());
    return value.dump();
}

// The message the table gives for `value`: the knob's own problem with it, or its range message when
// the value does not even fit the field (a negative seed).
inline std::string table_message(const Knob& knob, const nlohmann::json& value) {
    PipelineConfig config;
    try {
        knob.set(config, value);
    } catch (const KnobValueError&) {
        return knob.range_message();
    }
    return knob.problem(config).value_or("");
}

}  // namespace pinscope::testing
