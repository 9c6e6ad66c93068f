#include "core/config/knobs.h"

#include <cassert>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "core/config/knob_field.h"
#include "core/units/units.h"

namespace pinscope {
namespace knob_codec {
namespace {

// In nlohmann::json::value_t order: null, object, array, string, boolean, three kinds of number, binary,
// discarded.
const char* json_type_name(const json& v) {
    constexpr const char* kNames[] = {"null",     "an object", "an array", "a string", "a boolean",
                                      "a number", "a number",  "a number", "binary",   "nothing"};
    return kNames[static_cast<size_t>(v.type())];
}

constexpr std::string_view kShapeProblem =
    "should be 1 to 4 positive sizes joined by 'x', e.g. 3x224x224; use a shape such as 3x32x32";

}  // namespace

void wrong_type(const json& value, std::string_view expected) {
    // An array or object is named, not printed: it may be long, and dump() recurses once per level of
    // nesting, so a file nested a hundred thousand levels deep would overflow the stack.
    if (value.is_structured())
        throw KnobValueError(fmt::format("should be {}, not {}", expected, json_type_name(value)));
    throw KnobValueError(
        fmt::format("should be {}, not {} ({})", expected, json_type_name(value), value.dump()));
}

void out_of_range(const Knob& knob) {
    // The range message names the knob and ends a sentence; the error's reader adds both again.
    std::string message = knob.range_message().substr(knob.key.size() + 1);
    if (message.ends_with('.')) message.pop_back();
    throw KnobValueError(message);
}

int64_t whole_number(const json& value) {
    if (value.is_number_integer()) return value.get<int64_t>();
    if (value.is_number_float()) {
        const double d = value.get<double>();
        if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9e18) return static_cast<int64_t>(d);
    }
    wrong_type(value, "an integer");
}

void decode(const Knob&, const json& value, bool& field) {
    if (!value.is_boolean()) wrong_type(value, "true or false");
    field = value.get<bool>();
}

void decode(const Knob& knob, const json& value, int& field) {
    const int64_t v = whole_number(value);
    if (v < INT32_MIN || v > INT32_MAX) out_of_range(knob);
    field = static_cast<int>(v);
}

void decode(const Knob&, const json& value, int64_t& field) {
    field = whole_number(value);
}

void decode(const Knob& knob, const json& value, uint64_t& field) {
    const int64_t v = whole_number(value);
    if (v < 0) out_of_range(knob);
    field = static_cast<uint64_t>(v);
}

void decode(const Knob&, const json& value, double& field) {
    if (!value.is_number()) wrong_type(value, "a number");
    field = value.get<double>();
}

void decode(const Knob&, const json& value, std::string& field) {
    if (!value.is_string()) wrong_type(value, "a string");
    field = value.get<std::string>();
}

void decode(const Knob&, const json& value, SampleShape& field) {
    if (value.is_string()) {
        if (auto shape = parse_sample_shape(value.get<std::string>())) {
            field = *shape;
            return;
        }
    } else if (value.is_array()) {
        SampleShape shape;
        shape.dims.clear();
        for (const json& d : value) shape.dims.push_back(whole_number(d));
        field = shape;
        return;
    }
    throw KnobValueError(std::string(kShapeProblem));
}

void decode(const Knob& knob, const json& value, std::optional<int>& field) {
    if (value.is_null()) {
        field.reset();
        return;
    }
    int v = 0;
    decode(knob, value, v);
    field = v;
}

std::optional<std::string> shape_rule(const PipelineConfig& c) {
    bool ok = !c.sample_shape.dims.empty() && c.sample_shape.dims.size() <= 4;
    for (int64_t d : c.sample_shape.dims) ok = ok && d >= 1 && d <= (1 << 20);
    if (ok) return std::nullopt;
    return fmt::format("sample_shape {}.", kShapeProblem);
}

std::optional<std::string> dataset_rule(const PipelineConfig& c) {
    if (c.dataset == "synthetic") return std::nullopt;
    if (!c.reads_images())
        return fmt::format(
            "dataset should be synthetic, sample-jpegs or folder:PATH, not \"{}\"; use folder: and a "
            "folder of JPEG or PNG files.",
            printable(c.dataset));
    const std::vector<int64_t>& dims = c.sample_shape.dims;
    if (dims.size() != 3 || (dims[0] != 1 && dims[0] != 3))
        return fmt::format(
            "dataset {} needs sample_shape CxHxW with 1 or 3 channels, not {}; use e.g. 3x224x224.",
            printable(c.dataset), c.sample_shape.to_string());
    return std::nullopt;
}

}  // namespace knob_codec

namespace {

std::optional<int64_t> parse_integer(std::string_view text) {
    int64_t value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size() || text.empty()) return std::nullopt;
    return value;
}

std::optional<double> parse_number(std::string_view text) {
    double value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size() || text.empty()) return std::nullopt;
    return value;
}

}  // namespace

std::string_view knob_group_title(KnobGroup group) {
    constexpr std::string_view kTitles[] = {"DataLoader", "Workload", "GPU", "Length"};
    return kTitles[static_cast<size_t>(group)];
}

std::string knob_number(double value) {
    if (std::isfinite(value) && value == std::floor(value) && std::fabs(value) < 1e15)
        return std::to_string(static_cast<int64_t>(value));
    return fmt::format("{}", value);
}

std::span<const std::string_view> Knob::choices() const {
    return access.choices ? access.choices() : std::span<const std::string_view>{};
}

nlohmann::json Knob::parse(std::string_view text) const {
    if (optional && (text == "unset" || text.empty())) return nullptr;
    switch (type) {
        case KnobType::boolean:
            if (text == "true" || text == "on" || text == "1") return true;
            if (text == "false" || text == "off" || text == "0") return false;
            throw KnobValueError("should be true or false");
        case KnobType::integer:
            if (auto v = parse_integer(text)) return *v;
            throw KnobValueError("should be an integer");
        case KnobType::number:
            if (auto v = parse_number(text)) return *v;
            throw KnobValueError("should be a number");
        case KnobType::choice:
            for (std::string_view choice : choices())
                if (choice == text) return std::string(text);
            throw KnobValueError(fmt::format("should be one of {}", fmt::join(choices(), ", ")));
        case KnobType::shape: {
            PipelineConfig scratch;
            set(scratch, std::string(text));  // throws the shape's own message
            return scratch.sample_shape.to_string();
        }
        case KnobType::text:
            return std::string(text);
    }
    return nullptr;
}

std::string Knob::text(const PipelineConfig& config) const {
    const nlohmann::json value = get(config);
    if (value.is_null()) return "unset";
    if (value.is_string()) return value.get<std::string>();
    if (value.is_number_float()) return knob_number(value.get<double>());
    return value.dump();
}

bool Knob::is_none(const PipelineConfig& config) const {
    if (none_label.empty()) return false;
    const nlohmann::json value = get(config);
    if (value.is_null()) return true;
    // An optional knob's none is unset: its lowest value, given, is a value (prefetch_factor=1).
    if (optional) return false;
    if (value.is_string()) return value.get<std::string>().empty();
    return value.is_number() && value.get<double>() == min;
}

std::string Knob::label(const PipelineConfig& config) const {
    const std::string value = text(config);
    if (is_none(config)) {
        if (value == "unset") return fmt::format("{} ({})", none_label, knob_number(unset_means));
        if (value.empty()) return std::string(none_label);
        return fmt::format("{} ({})", value, none_label);
    }
    return value;
}

std::string Knob::range_message() const {
    std::string bounds;
    if (std::isfinite(min) && std::isfinite(max))
        bounds = fmt::format("between {} and {}", knob_number(min), knob_number(max));
    else if (std::isfinite(min))
        bounds = fmt::format("at least {}", knob_number(min));
    else
        bounds = fmt::format("at most {}", knob_number(max));
    return fmt::format("{} should be {}{}{}; {}", key, bounds, unit.empty() ? "" : " ", unit, fix);
}

std::optional<std::string> Knob::problem(const PipelineConfig& config) const {
    if (rule)
        if (auto broken = rule(config)) return broken;
    if (!has_range()) return std::nullopt;
    const nlohmann::json value = get(config);
    if (value.is_null()) return std::nullopt;  // unset: the default applies
    const double v = value.get<double>();
    if (std::isfinite(v) && v >= min && v <= max) return std::nullopt;
    if (v < min && !below_min.empty())
        return fmt::format(fmt::runtime(below_min), fmt::arg("value", text(config)));
    return range_message();
}

void keep_machine_knobs(PipelineConfig& config, const PipelineConfig& from) {
    for (const Knob& k : knobs())
        if (k.machine) k.set(config, k.get(from));
}

const Knob* find_knob(std::string_view key) {
    for (const Knob& k : knobs())
        if (k.key == key) return &k;
    return nullptr;
}

const Knob& knob(std::string_view key) {
    const Knob* found = find_knob(key);
    assert(found && "no knob with this key");
    return *found;
}

std::vector<KnobDifference> knob_differences(const PipelineConfig& a, const PipelineConfig& b) {
    std::vector<KnobDifference> out;
    for (const Knob& k : knobs())
        if (k.get(a) != k.get(b)) out.push_back({&k, k.label(a), k.label(b)});
    return out;
}

}  // namespace pinscope
