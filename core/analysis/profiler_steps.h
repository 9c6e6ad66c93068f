#pragma once
// The steps of an imported PyTorch profiler trace: torch.profiler marks each with a `ProfilerStep#N`
// annotation on the train loop's thread. Per step, the share of it the train loop spent getting data
// (waiting in the DataLoader's next(), or loading inline): the question "is my loader slow?" asked
// step by step.
#include <cstdint>
#include <vector>

#include "core/trace/trace_store.h"

namespace pinscope {

struct ProfilerStep {
    int64_t number = 0;  // N of ProfilerStep#N
    TimeNs start = 0, end = 0;
    TimeNs data_wait = 0;  // of it, getting data
};

struct ProfilerSteps {
    std::vector<ProfilerStep> steps;  // in time order
    double steps_per_s = 0;           // over the first step's start to the last one's end
    double mean_step_ms = 0;
    double data_wait_share = 0;  // summed over the steps, of their summed length
};

// Empty for a trace without step annotations (pinscope's own runs).
ProfilerSteps profiler_steps(const TraceStore& store);

}  // namespace pinscope
