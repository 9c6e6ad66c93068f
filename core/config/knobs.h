#pragma once
// The knob table: every field of PipelineConfig described once, with its config key, type, range, unit,
// group, help text and how to read and set it. The command line (its flags and --help), the JSON reader
// and writer, the range checks and their messages, and the app's Controls panel all iterate this table.
// Adding a knob is one row in knob_table.cpp plus its use in the engine; rules that join two knobs
// (prefetch_factor needs workers, a batch under 4 GiB) stay in validate.cpp.
//
// Core speaks config keys: messages name knobs as `num_workers` or `num_workers=0`. The command line
// maps keys to its flags, the app shows them as its widget labels, which are the keys.
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config/pipeline_config.h"

namespace pinscope {

enum class KnobType : uint8_t {
    boolean,  // true or false
    integer,  // a whole number in [min, max]
    number,   // a real number in [min, max]
    choice,   // one of choices()
    shape,    // sizes joined by 'x', e.g. 3x224x224
    text,     // free text, e.g. a file name
};

// How the knobs are grouped on the command line's --help and in the app's Controls panel.
enum class KnobGroup : uint8_t { loader, workload, gpu, length };
constexpr KnobGroup kKnobGroups[] = {KnobGroup::loader, KnobGroup::workload, KnobGroup::gpu,
                                     KnobGroup::length};
std::string_view knob_group_title(KnobGroup group);

// A value that does not fit the knob: thrown by Knob::set() and Knob::parse(). `problem` reads after
// the knob's name: "should be an integer, not a string (\"two\")".
class KnobValueError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

struct Knob;

// How a knob reads and writes its field of PipelineConfig (made by knob_field<&PipelineConfig::x>()).
struct KnobAccess {
    nlohmann::json (*get)(const PipelineConfig& config) = nullptr;
    void (*set)(const Knob& knob, PipelineConfig& config, const nlohmann::json& value) = nullptr;
    std::span<const std::string_view> (*choices)() = nullptr;
};

struct Knob {
    static constexpr double kUnbounded = std::numeric_limits<double>::infinity();

    std::string_view key = {};  // the config key and JSON name: "num_workers"
    KnobType type = KnobType::integer;
    KnobGroup group = KnobGroup::loader;
    std::string_view help = {};                  // the one help text: --help, the app's tooltip
    std::string_view unit = {};                  // "us", "bytes", "MiB", "s", or "" for a plain count
    double min = -kUnbounded, max = kUnbounded;  // the valid range (integer and number knobs)
    double slider_min = 0, slider_max = 0;       // what is useful to move by hand (both 0: min..max)
    bool logarithmic = false;                    // the slider moves by factors, not steps
    bool optional = false;                       // may be unset (JSON null)
    double unset_means = 0;                      // for an optional knob: the value in force when unset
    // Describes the computer rather than the workload: presets and "reset to defaults" keep it.
    bool machine = false;
    // What the knob's lowest value (or unset, or empty text) means: "half the RAM", "no limit".
    std::string_view none_label = {};
    std::string_view fix = {};        // the fix an out-of-range message offers: "use fewer workers."
    std::string_view below_min = {};  // PyTorch's own words when below min; {value} is the value given
    std::string_view type_name = {};  // what --help calls the value: "CxHxW", "FILE" (default: from type)
    // A rule on this knob alone beyond its range (a shape's sizes); the problem, or nullopt.
    std::optional<std::string> (*rule)(const PipelineConfig& config) = nullptr;
    // Whether the knob means anything in `config` (prefetch_factor needs workers); null: always. The
    // app greys out a knob that does not apply.
    bool (*applies)(const PipelineConfig& config) = nullptr;
    KnobAccess access = {};

    nlohmann::json get(const PipelineConfig& config) const { return access.get(config); }
    // Sets the field from a JSON value of the knob's type. Throws KnobValueError for a wrong type.
    void set(PipelineConfig& config, const nlohmann::json& value) const { access.set(*this, config, value); }
    // The value a user typed (command line, text field) as the knob's JSON type. Throws KnobValueError.
    nlohmann::json parse(std::string_view text) const;
    std::span<const std::string_view> choices() const;

    // The value as text: "2", "3x224x224", "true", "unset", "" for empty text.
    std::string text(const PipelineConfig& config) const;
    // The value as a person reads it, saying what a "none" value means: "unset (2)", "0 (half the RAM)",
    // "built-in H100", "4096".
    std::string label(const PipelineConfig& config) const;
    // Whether the value is the knob's "none" (unset, empty text, or its lowest value) with a none_label;
    // an optional knob's none is unset alone.
    bool is_none(const PipelineConfig& config) const;
    // What is wrong with the value in `config` (range, rule), as a message that names the knob and a
    // fix; nullopt when it is fine.
    std::optional<std::string> problem(const PipelineConfig& config) const;
    // "<knob> should be between <min> and <max>; <the knob's advice>."
    std::string range_message() const;
    bool has_range() const { return type == KnobType::integer || type == KnobType::number; }
    bool applies_to(const PipelineConfig& config) const { return !applies || applies(config); }
    double slider_low() const { return slider_min == 0 && slider_max == 0 ? min : slider_min; }
    double slider_high() const { return slider_min == 0 && slider_max == 0 ? max : slider_max; }
};

// Every knob, in the order --help and the Controls panel show them.
std::span<const Knob> knobs();
// The knob with this config key, or nullptr.
const Knob* find_knob(std::string_view key);
// The same, for a key that must exist (a typo is a bug): asserts.
const Knob& knob(std::string_view key);

// Copies the knobs that describe the computer (Knob::machine: device, calibration, ...) from `from`
// into `config`: a preset or a reset changes the workload, not the machine it runs on.
void keep_machine_knobs(PipelineConfig& config, const PipelineConfig& from);

// A knob whose value differs between two configs, with both values as Knob::label() says them.
struct KnobDifference {
    const Knob* knob = nullptr;
    std::string a, b;
};
// In knob-table order: what `pinscope diff` and the app's compare view say changed between two runs.
std::vector<KnobDifference> knob_differences(const PipelineConfig& a, const PipelineConfig& b);
// The same for two captures' configs, either of which may be missing (a trace pinscope did not run):
// nothing to compare then.
inline std::vector<KnobDifference> knob_differences(const std::optional<PipelineConfig>& a,
                                                    const std::optional<PipelineConfig>& b) {
    if (!a || !b) return {};
    return knob_differences(*a, *b);
}

// A number as messages print it: integers without decimals ("1073741824"), others as fmt does.
std::string knob_number(double value);

}  // namespace pinscope
