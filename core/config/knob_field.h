#pragma once
// How a knob reads and writes its PipelineConfig field, for each C++ type a field has: knob_field<&
// PipelineConfig::num_workers>() gives the KnobAccess of a row of the knob table. Values travel as
// JSON (numbers, booleans, strings, null for unset), the form configs are saved in.
#include <fmt/format.h>

#include "core/config/knobs.h"

namespace pinscope::knob_codec {

using nlohmann::json;

[[noreturn]] void wrong_type(const json& value, std::string_view expected);
[[noreturn]] void out_of_range(const Knob& knob);

// A whole number: an integer, or a float with no fraction (JSON writers sometimes give 2.0).
int64_t whole_number(const json& value);

inline json encode(bool v) {
    return v;
}
inline json encode(int v) {
    return v;
}
inline json encode(int64_t v) {
    return v;
}
inline json encode(uint64_t v) {
    return v;
}
inline json encode(double v) {
    return v;
}
inline json encode(const std::string& v) {
    return v;
}
inline json encode(const SampleShape& v) {
    return v.to_string();
}
inline json encode(const std::optional<int>& v) {
    return v ? json(*v) : json(nullptr);
}
template <class Choice>
requires requires(Choice c) {
    choice_names(c);
}
json encode(Choice v) {
    return std::string(to_string(v));
}

void decode(const Knob& knob, const json& value, bool& field);
void decode(const Knob& knob, const json& value, int& field);
void decode(const Knob& knob, const json& value, int64_t& field);
void decode(const Knob& knob, const json& value, uint64_t& field);
void decode(const Knob& knob, const json& value, double& field);
void decode(const Knob& knob, const json& value, std::string& field);
void decode(const Knob& knob, const json& value, SampleShape& field);
void decode(const Knob& knob, const json& value, std::optional<int>& field);
template <class Choice>
requires requires(Choice c) {
    choice_names(c);
}
void decode(const Knob& knob, const json& value, Choice& field) {
    if (!value.is_string()) wrong_type(value, "a string");
    const std::string text = value.get<std::string>();
    if (auto parsed = parse_choice<Choice>(text)) {
        field = *parsed;
        return;
    }
    throw KnobValueError(
        fmt::format("should be one of {}, not \"{}\"", fmt::join(knob.choices(), ", "), text));
}

// sample_shape's rule beyond its type: 1 to 4 sizes, each from 1 to 2^20.
std::optional<std::string> shape_rule(const PipelineConfig& config);
// `dataset` is "synthetic" or "folder:PATH", and a folder's samples are images (C x H x W, C 1 or 3).
std::optional<std::string> dataset_rule(const PipelineConfig& config);

template <class T>
std::span<const std::string_view> choices_of() {
    if constexpr (requires(T c) { choice_names(c); })
        return choice_names(T{});
    else
        return {};
}

}  // namespace pinscope::knob_codec

namespace pinscope {

// The KnobAccess of one PipelineConfig field.
template <auto Field>
constexpr KnobAccess knob_field() {
    using T = std::remove_cvref_t<decltype(std::declval<PipelineConfig&>().*Field)>;
    return KnobAccess{
        [](const PipelineConfig& c) { return knob_codec::encode(c.*Field); },
        [](const Knob& knob, PipelineConfig& c, const nlohmann::json& v) {
            knob_codec::decode(knob, v, c.*Field);
        },
        &knob_codec::choices_of<T>,
    };
}

}  // namespace pinscope
