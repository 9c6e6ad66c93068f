#include "core/lab/sweep_spec.h"

#include <algorithm>
#include <cassert>
#include <cctype>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "core/config/validate.h"

namespace pinscope {
namespace {

using nlohmann::json;

std::string_view trim(std::string_view text) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
    return text;
}

// How a spec for this knob may be written: the fix an error offers.
std::string spec_forms(const Knob& knob) {
    switch (knob.type) {
        case KnobType::integer:
            return knob.optional ? "use a..b, a..b:step or a list such as 1,2,4 (unset for the default)."
                                 : "use a..b, a..b:step or a list such as 1,2,4.";
        case KnobType::number:
            return "use a list such as 0,100,200 or a..b:step such as 0..200:100.";
        case KnobType::boolean:
            return "use both, true or false.";
        case KnobType::choice:
            return fmt::format("use all, or one or a list of {}.", fmt::join(knob.choices(), ", "));
        default:
            return "use one value or a list separated by commas.";
    }
}

std::vector<std::string_view> split(std::string_view text, char separator) {
    std::vector<std::string_view> parts;
    for (size_t start = 0;;) {
        const size_t at = text.find(separator, start);
        parts.push_back(trim(text.substr(start, at == std::string_view::npos ? at : at - start)));
        if (at == std::string_view::npos) return parts;
        start = at + 1;
    }
}

class AxisParser {
  public:
    AxisParser(const Knob& knob, std::string_view spec) : knob_(knob), spec_(spec) {}

    SweepAxis parse() {
        if (spec_.empty()) fail("give the values to sweep; " + spec_forms(knob_));
        SweepAxis axis{&knob_, {}};
        if (knob_.type == KnobType::boolean && (spec_ == "both" || spec_ == "all"))
            axis.values = {false, true};
        else if (knob_.type == KnobType::choice && spec_ == "all")
            for (std::string_view choice : knob_.choices()) axis.values.push_back(std::string(choice));
        else if (spec_.find("..") != std::string_view::npos)
            axis.values = range();
        else
            for (std::string_view item : split(spec_, ',')) axis.values.push_back(value(item));
        for (const json& v : axis.values) check_range(v);
        order(axis.values);
        return axis;
    }

  private:
    [[noreturn]] void fail(const std::string& problem) const {
        throw SweepSpecError(knob_.key, spec_, problem);
    }

    json value(std::string_view text) const {
        try {
            return knob_.parse(text);
        } catch (const KnobValueError& e) {
            fail(fmt::format("{} {}, not \"{}\"; {}", knob_.key, e.what(), text, spec_forms(knob_)));
        }
    }

    double number(std::string_view text) const {
        const json v = value(text);
        if (v.is_null())
            fail(fmt::format("a range of {} needs numbers at both ends; {}", knob_.key, spec_forms(knob_)));
        return v.get<double>();
    }

    std::vector<json> range() const {
        if (!knob_.has_range())
            fail(fmt::format("{} is not a number and takes no range; {}", knob_.key, spec_forms(knob_)));
        const size_t dots = spec_.find("..");
        const std::string_view rest = spec_.substr(dots + 2);
        const size_t colon = rest.find(':');
        const double low = number(trim(spec_.substr(0, dots)));
        const double high = number(trim(rest.substr(0, colon)));
        const bool integer = knob_.type == KnobType::integer;
        if (colon == std::string_view::npos && !integer)
            fail(fmt::format("a range of {} needs a step; {}", knob_.key, spec_forms(knob_)));
        const double step = colon == std::string_view::npos ? 1 : number(trim(rest.substr(colon + 1)));
        if (high < low)
            fail(fmt::format("the range of {} runs downwards; write it as {}..{}", knob_.key,
                             knob_number(high), knob_number(low)));
        check_range(integer ? json(static_cast<int64_t>(low))
                            : json(low));  // the knob's message, not a count
        check_range(integer ? json(static_cast<int64_t>(high)) : json(high));
        if (!(step > 0))
            fail(fmt::format("the step of {} should be above 0; {}", knob_.key, spec_forms(knob_)));
        const double count = std::floor((high - low) / step + 1e-9) + 1;
        if (count > static_cast<double>(kMaxSweepValues))
            fail(fmt::format("that is {} values of {}; sweep at most {}, e.g. with a larger step",
                             knob_number(count), knob_.key, kMaxSweepValues));
        std::vector<json> values;
        for (int i = 0; i < static_cast<int>(count); ++i) {
            const double v = low + i * step;
            if (integer)
                values.push_back(static_cast<int64_t>(std::llround(v)));
            else
                values.push_back(std::round(v * 1e9) / 1e9);  // 0.1 * 3 is 0.3, not 0.30000000000000004
        }
        return values;
    }

    // The knob's own range and rules, with its own message (the one `run` gives).
    void check_range(const json& v) const {
        PipelineConfig scratch;
        try {
            knob_.set(scratch, v);
        } catch (const KnobValueError&) {
            fail(knob_.range_message());
        }
        if (std::optional<std::string> problem = knob_.problem(scratch)) fail(*problem);
    }

    // Ascending, each value once: numbers by value (unset first), choices in the table's order.
    void order(std::vector<json>& values) const {
        if (values.size() > kMaxSweepValues)
            fail(fmt::format("that is {} values of {}; sweep at most {}", values.size(), knob_.key,
                             kMaxSweepValues));
        auto rank = [this](const json& v) -> double {
            if (v.is_null()) return -Knob::kUnbounded;
            if (v.is_boolean()) return v.get<bool>() ? 1 : 0;
            if (v.is_number()) return v.get<double>();
            const auto choices = knob_.choices();
            const auto at = std::find(choices.begin(), choices.end(), v.get<std::string>());
            return at == choices.end() ? 0 : static_cast<double>(at - choices.begin());
        };
        std::vector<json> unique;
        for (const json& v : values)
            if (std::find(unique.begin(), unique.end(), v) == unique.end()) unique.push_back(v);
        if (knob_.type != KnobType::shape && knob_.type != KnobType::text)
            std::stable_sort(unique.begin(), unique.end(),
                             [&](const json& a, const json& b) { return rank(a) < rank(b); });
        values = std::move(unique);
    }

    const Knob& knob_;
    std::string_view spec_;
};

size_t knob_index(const Knob* knob) {
    return static_cast<size_t>(knob - knobs().data());
}

}  // namespace

SweepSpecError::SweepSpecError(std::string_view key, std::string_view spec, const std::string& problem)
    : std::runtime_error(key.empty() ? problem : fmt::format("{} {}: {}", key, spec, problem)),
      key_(key),
      spec_(spec),
      problem_(problem) {}

std::string SweepAxis::label(size_t value) const {
    PipelineConfig scratch;
    knob->set(scratch, values[value]);
    return fmt::format("{}={}", knob->key, knob->text(scratch));
}

SweepAxis parse_sweep_axis(const Knob& knob, std::string_view spec) {
    return AxisParser(knob, trim(spec)).parse();
}

void reset_inapplicable_knobs(PipelineConfig& config) {
    static const PipelineConfig kDefaults;
    for (const Knob& k : knobs())
        if (!k.applies_to(config)) k.set(config, k.get(kDefaults));
}

size_t SweepGrid::collapsed() const {
    return cells() - invalid() - configs.size();
}

size_t SweepGrid::invalid() const {
    return static_cast<size_t>(std::count(cell_config.begin(), cell_config.end(), kNotRun));
}

std::vector<size_t> SweepGrid::coordinates(size_t cell) const {
    std::vector<size_t> at(axes.size());
    for (size_t a = axes.size(); a-- > 0;) {
        at[a] = cell % axes[a].values.size();
        cell /= axes[a].values.size();
    }
    return at;
}

size_t SweepGrid::cell_at(const std::vector<size_t>& coordinates) const {
    assert(coordinates.size() == axes.size());
    size_t cell = 0;
    for (size_t a = 0; a < axes.size(); ++a) cell = cell * axes[a].values.size() + coordinates[a];
    return cell;
}

std::string SweepGrid::label(const PipelineConfig& config) const {
    std::string text;
    for (const SweepAxis& axis : axes)
        text += fmt::format("{}{}={}", text.empty() ? "" : " ", axis.knob->key, axis.knob->text(config));
    return text;
}

std::string SweepGrid::shape() const {
    std::string text;
    for (const SweepAxis& axis : axes)
        text += fmt::format("{}{} {}", text.empty() ? "" : " x ", axis.values.size(), axis.knob->key);
    return text.empty() ? "1 config" : text;
}

std::optional<size_t> axis_of(const SweepGrid& grid, std::string_view key) {
    for (size_t a = 0; a < grid.axes.size(); ++a)
        if (grid.axes[a].knob->key == key) return a;
    return std::nullopt;
}

SweepGrid expand_sweep(const PipelineConfig& base, std::vector<SweepAxis> axes) {
    SweepGrid grid;
    grid.base = base;
    for (SweepAxis& axis : axes) {
        assert(axis.knob && !axis.values.empty());
        auto same = std::find_if(grid.axes.begin(), grid.axes.end(),
                                 [&](const SweepAxis& a) { return a.knob == axis.knob; });
        if (same != grid.axes.end())
            *same = std::move(axis);
        else
            grid.axes.push_back(std::move(axis));
    }
    std::sort(grid.axes.begin(), grid.axes.end(),
              [](const SweepAxis& a, const SweepAxis& b) { return knob_index(a.knob) < knob_index(b.knob); });
    size_t cells = 1;
    for (const SweepAxis& axis : grid.axes) {
        cells *= axis.values.size();
        if (cells > kMaxSweepCells)
            throw SweepSpecError(
                {}, {},
                fmt::format("the sweep has more than {} configs ({}); sweep fewer values, e.g. "
                            "with a step",
                            kMaxSweepCells, grid.shape()));
    }
    for (size_t cell = 0; cell < cells; ++cell) {
        PipelineConfig config = base;
        const std::vector<size_t> at = grid.coordinates(cell);
        for (size_t a = 0; a < grid.axes.size(); ++a)
            grid.axes[a].knob->set(config, grid.axes[a].values[at[a]]);
        reset_inapplicable_knobs(config);
        const Validation validation = validate(config);
        if (!validation.ok()) {
            grid.cell_config.push_back(SweepGrid::kNotRun);
            grid.problems.push_back(describe(validation.errors.front()));
            continue;
        }
        auto same = std::find(grid.configs.begin(), grid.configs.end(), config);
        grid.cell_config.push_back(static_cast<size_t>(same - grid.configs.begin()));
        grid.problems.emplace_back();
        if (same == grid.configs.end()) grid.configs.push_back(config);
    }
    return grid;
}

std::string held_fixed_note(const SweepGrid& grid) {
    if (!axis_of(grid, "batch_size") || axis_of(grid, "kernel_us") || axis_of(grid, "kernel_us_per_sample"))
        return {};
    const PipelineConfig& c = grid.base;
    if (c.kernel_us_per_sample <= 0)
        return fmt::format(
            "holds fixed: the GPU's compute per batch, kernel_us={} us whatever the batch size, so a bigger "
            "batch gets its extra samples' compute free; set kernel_us_per_sample for compute that grows "
            "with the batch",
            knob_number(c.kernel_us));
    return fmt::format(
        "holds fixed: the GPU's compute, kernel_us={} us per batch + kernel_us_per_sample={} us "
        "per sample",
        knob_number(c.kernel_us), knob_number(c.kernel_us_per_sample));
}

}  // namespace pinscope
