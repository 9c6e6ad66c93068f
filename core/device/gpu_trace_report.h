#pragma once
// How a real GPU's spans were recorded and what was lost on the way, in words any front end can show.
// The simulated GPU records every span itself and loses none, so it has no report.
#include <cstdint>
#include <string>

namespace pinscope {

struct GpuTraceReport {
    bool cupti = false;
    std::string method;         // "GPU spans from CUPTI (...)" or "GPU spans from CUDA events (why)"
    uint64_t spans = 0;         // GPU spans recorded
    uint64_t dropped = 0;       // records the tracer dropped
    uint64_t untimed = 0;       // records without times (start = end = 0)
    uint64_t uncorrelated = 0;  // spans whose batch id never arrived
};

}  // namespace pinscope
