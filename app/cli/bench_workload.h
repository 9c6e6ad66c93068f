#pragma once
// The workload both benchmarks run (`bench` for the engine, `bench --captures` for capture files): the
// simulated GPU with zero-cost samples (one float each), no decode, no io, zero-time kernels and no
// result copy, so what is measured is pinscope itself. Callers set workers, pinning and length.
#include "core/config/pipeline_config.h"

namespace pinscope {

inline PipelineConfig zero_cost_workload() {
    PipelineConfig config;
    config.device = DeviceChoice::sim;
    config.batch_size = 64;
    config.sample_shape.dims = {1};
    config.kernel_us = 0;
    config.d2h_bytes = 0;
    config.streams = 2;
    return config;
}

}  // namespace pinscope
