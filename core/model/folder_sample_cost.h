#pragma once
// What one sample of an image folder costs this host's CPU (read, decode, crop, convert), measured on a
// few of its files, for the predictor: it models that cost as decode_us, CPU work on a worker's core.
#include "core/config/pipeline_config.h"

namespace pinscope {

// The median microseconds per sample over up to 32 of the folder's files, on this thread; measured once
// per folder and sample_shape (later calls return the same). 0 for the synthetic dataset. Throws
// std::invalid_argument for a folder that cannot be used, as make_dataset() does.
double folder_sample_us(const PipelineConfig& config);

// `config` as the model sees it: for a folder, decode_us grows by folder_sample_us().
PipelineConfig with_measured_sample_cost(const PipelineConfig& config);

}  // namespace pinscope
