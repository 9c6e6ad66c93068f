#pragma once
// The one place that decides whether a PipelineConfig can run. Rules follow PyTorch's DataLoader where
// it has them, with its wording; every error names the option, the bad value and the fix.
#include <string>
#include <vector>

#include "core/config/pipeline_config.h"

namespace pinscope {

struct ConfigIssue {
    std::string option;   // the config key, e.g. "num_workers"
    std::string value;    // the offending value as text
    std::string message;  // what is wrong and how to fix it
};

struct Validation {
    std::vector<ConfigIssue> errors;    // the config cannot run
    std::vector<ConfigIssue> warnings;  // it runs, but probably not as meant
    bool ok() const { return errors.empty(); }
};

// `host_cores` is used for PyTorch's warning about more workers than cores; 0 skips it.
Validation validate(const PipelineConfig& config, unsigned host_cores = 0);

// "num_workers=-1: num_workers option should be non-negative; use num_workers=0 to disable ..."
std::string describe(const ConfigIssue& issue);

}  // namespace pinscope
