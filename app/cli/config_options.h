#pragma once
// The knob table as command-line options: one per knob, named after its config key (--num-workers,
// --prefetch-factor, --pin-memory/--no-pin-memory, ...), with the knob's help text, group and default.
// Shared by `run`, `bench` and `gui`. Core names knobs by their keys; this is where keys become flags.
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "core/config/pipeline_config.h"
#include "core/config/presets.h"
#include "core/io/output_plan.h"

namespace pinscope {

class ConfigOptions {
  public:
    // Registers the options on `command`, showing the defaults of `defaults` in --help.
    ConfigOptions(CLI::App& command, const PipelineConfig& defaults);
    ~ConfigOptions();

    // The config to run: `defaults`, then --preset NAME, then --config FILE, then every option given on
    // the command line. Throws UsageError for a bad value, file or combination (validate()'s rules), as
    // one line.
    PipelineConfig resolve() const;
    // The preset --preset named, once resolve() has run; nullptr without one.
    const Preset* preset() const { return preset_; }
    // The files `config` (as resolve() gave it) reads: --config and --calibration, which no output of the
    // same command may overwrite.
    void add_inputs(OutputPlan& plan, const PipelineConfig& config) const;

  private:
    struct KnobOption;
    PipelineConfig defaults_;
    std::string preset_name_;
    mutable const Preset* preset_ = nullptr;
    std::string config_file_;
    std::unique_ptr<KnobOption[]> options_;  // one per knob, at fixed addresses: CLI11 writes into them
};

}  // namespace pinscope
