#pragma once
// A discrete-event model of the whole pipeline: the DataLoader's workers, its pin thread and the train
// loop as the real ones behave (data_loader.h, train_loop.h), the host's cores and memory bus shared by
// whatever runs at once, and the simulated GPU's engines (model_gpu.h). No threads, no sleeping: model
// time jumps from one event to the next, so a config is evaluated in tens of microseconds.
//
// What it records is what compute_metrics() reads from a real trace: kernel and copy spans, and the train
// loop's waiting (for the loader, for pageable staging, for the GPU).
#include <cstdint>
#include <vector>

#include "core/config/pipeline_config.h"
#include "core/device/calibration.h"
#include "core/model/host_rates.h"

namespace pinscope::model {

struct Interval {
    double start = 0, end = 0;
};

enum class LoopState : uint8_t { loader, staging, sync };

struct LoopSpan {
    Interval time;
    LoopState state;
};

// What a run of the model leaves: spans in model time (ns from the pipeline's start).
struct ModelTrace {
    std::vector<Interval> kernels;   // in order: one compute engine
    std::vector<double> batch_ends;  // when each batch's last kernel ended, in order
    std::vector<Interval> h2d, d2h;  // in completion order
    std::vector<double> h2d_bytes, d2h_bytes;
    std::vector<LoopSpan> loop;  // the train loop's, in order
    double first_h2d = -1;       // when the first batch's first copy began (data_on_gpu: its first kernel)
    double stopped = 0;          // when the train loop stopped taking batches
    double end = 0;              // when the GPU had drained (the last span's end)
    int64_t batches = 0;         // batches submitted
    // When the last batch that paid a fresh buffer's first touch (collate or pinned) ended: the steady
    // state starts after it.
    double warm_from = 0;
};

// Runs `config` until `batch_limit` batches are submitted or model time reaches `seconds` (0: no limit),
// then drains the GPU.
ModelTrace run_model(const PipelineConfig& config, const Calibration& calibration, const HostRates& host,
                     int64_t batch_limit, double seconds);

}  // namespace pinscope::model
