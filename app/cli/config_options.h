#pragma once
// The PipelineConfig knobs as command-line options, named as in PyTorch (--num-workers,
// --prefetch-factor, --pin-memory/--no-pin-memory, ...). Shared by `run`, `bench` and `gui`.
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "core/config/pipeline_config.h"

namespace pinscope {

class ConfigOptions {
  public:
    // Registers the options on `command`, showing the defaults of `defaults` in --help.
    ConfigOptions(CLI::App& command, const PipelineConfig& defaults);
    ~ConfigOptions();

    // The config to run: `defaults`, then --config FILE, then every option given on the command line.
    // Throws UsageError for a bad value, file or combination (validate()'s rules), as one line.
    PipelineConfig resolve() const;

    // "--num-workers" for "num_workers".
    static std::string flag_for(const std::string& config_key);

  private:
    struct Values;
    std::unique_ptr<Values> values_;
    CLI::App& command_;
};

}  // namespace pinscope
