#include "app/cli/config_options.h"

#include <thread>

#include <fmt/format.h>

#include "app/cli/cli_words.h"
#include "app/cli/usage_error.h"
#include "core/config/config_json.h"
#include "core/config/knobs.h"
#include "core/config/validate.h"
#include "core/pipeline/image_folder_dataset.h"

namespace pinscope {
namespace {

std::string type_name(const Knob& knob) {
    if (!knob.type_name.empty()) return std::string(knob.type_name);
    switch (knob.type) {
        case KnobType::integer:
            return "INT";
        case KnobType::number:
            return knob.unit.empty() ? "NUMBER" : fmt::format("NUMBER({})", knob.unit);
        default:
            return "TEXT";
    }
}

}  // namespace

struct ConfigOptions::KnobOption {
    const Knob* knob = nullptr;
    CLI::Option* option = nullptr;
    std::string text;   // what was given, for every type but boolean
    bool flag = false;  // for boolean knobs: --x sets true, --no-x false
};

ConfigOptions::ConfigOptions(CLI::App& cmd, const PipelineConfig& defaults)
    : defaults_(defaults), options_(std::make_unique<KnobOption[]>(knobs().size())) {
    cmd.add_option("--preset", preset_name_, "Start from a preset: " + preset_slugs())->option_text("NAME");
    cmd.add_option("--config", config_file_,
                   "Load the config from a JSON file (a saved config or a preset file); options given here "
                   "override it")
        ->option_text("FILE");
    for (size_t i = 0; i < knobs().size(); ++i) {
        const Knob& knob = knobs()[i];
        KnobOption& o = options_[i];
        o.knob = &knob;
        const std::string flag = flag_for(knob.key);
        const std::string group(knob_group_title(knob.group));
        if (knob.type == KnobType::boolean) {
            const std::string help =
                fmt::format("{} (default: {})", knob.help, knob.get(defaults).get<bool>() ? "on" : "off");
            o.option = cmd.add_flag(flag + ",!" + negated_flag_for(knob.key), o.flag, help)->group(group);
            continue;
        }
        o.option = cmd.add_option(flag, o.text, std::string(knob.help))
                       ->type_name(type_name(knob))
                       ->default_str(knob.label(defaults))
                       ->group(group);
        if (knob.type == KnobType::choice)
            o.option->check(
                CLI::IsMember(std::vector<std::string>(knob.choices().begin(), knob.choices().end())));
    }
}

ConfigOptions::~ConfigOptions() = default;

void ConfigOptions::add_inputs(OutputPlan& plan, const PipelineConfig& config) const {
    plan.add_input(config_file_, "the --config file");
    plan.add_input(config.calibration, "the --calibration file");
}

PipelineConfig ConfigOptions::resolve() const {
    PipelineConfig c = defaults_;
    if (!preset_name_.empty()) {
        preset_ = find_preset(preset_name_);
        if (!preset_)
            throw UsageError(fmt::format("--preset {}: no such preset; the presets are {}.", preset_name_,
                                         preset_slugs()));
        c = apply_preset(*preset_, c);
    }
    if (!config_file_.empty()) {
        try {
            c = load_config(config_file_, c);
        } catch (const ConfigFileError& e) {
            throw UsageError(fmt::format("--config: {}", e.what()));
        }
    }
    for (size_t i = 0; i < knobs().size(); ++i) {
        const KnobOption& o = options_[i];
        if (o.option->count() == 0) continue;
        try {
            o.knob->set(c,
                        o.knob->type == KnobType::boolean ? nlohmann::json(o.flag) : o.knob->parse(o.text));
        } catch (const KnobValueError& e) {
            throw UsageError(
                fmt::format("{} {}: {} {}.", flag_for(o.knob->key), o.text, o.knob->key, e.what()));
        }
    }
    Validation validation = validate(c, std::thread::hardware_concurrency());
    if (!validation.ok()) {
        const ConfigIssue& issue = validation.errors.front();
        throw UsageError(
            fmt::format("{} {}: {}", flag_for(issue.option), issue.value, cli_words(issue.message)));
    }
    if (const std::optional<std::string> folder = dataset_folder(c)) {
        try {
            list_image_folder(*folder);  // a folder that is not there or holds no images: before the run
        } catch (const std::invalid_argument& e) {
            // "dataset folder:X: no such folder", in the command line's words
            throw UsageError(flag_for("dataset") +
                             std::string(e.what()).substr(std::string_view("dataset").size()));
        }
    }
    return c;
}

}  // namespace pinscope
