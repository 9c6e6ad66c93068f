#pragma once
// How many batches the pipeline model (pipeline_model.h) runs for a prediction before predict() stretches
// its steady state to the run's length.
#include <cstdint>

#include "core/config/pipeline_config.h"

namespace pinscope::model {

// The most batches the model runs to get its steady state past the pools' first touches (predict()).
constexpr int64_t kMaxBatchesModelled = 4096;

// Batches to model first: enough to fill the prefetch queue, the slots in flight and a few rounds of
// every worker, twice over; with stragglers, whole periods of them in each quarter.
int64_t batches_to_model(const PipelineConfig& config);

// The next, larger number to model when `modelled` batches did not reach the steady state: twice as many,
// up to kMaxBatchesModelled, whole straggler periods in each quarter still. `modelled` itself once there.
int64_t more_batches_to_model(int64_t modelled, const PipelineConfig& config);

}  // namespace pinscope::model
