#pragma once
// The configs the tests run on the simulated GPU, named for what they are for.
#include <string>

#include "core/config/pipeline_config.h"

namespace pinscope::testing {

// `config` on the simulated GPU, whatever machine the test runs on.
inline PipelineConfig on_sim(PipelineConfig config = {}) {
    config.device = DeviceChoice::sim;
    return config;
}

// A quick whole pipeline: 2 workers, 8 small images a batch, a 50 us kernel, ending after `batches`
// (0: no bound; the caller sets one).
inline PipelineConfig tiny_run(int64_t batches) {
    PipelineConfig config = on_sim();
    config.num_workers = 2;
    config.batch_size = 8;
    config.sample_shape.dims = {3, 16, 16};
    config.kernel_us = 50;
    config.d2h_bytes = 256;
    config.seconds = 0;
    config.batches = batches;
    return config;
}

// Batches the size of ScriptedDataset's samples (4 samples of 16 bytes = 4 floats each), no GPU work:
// for tests of the loader alone.
inline PipelineConfig scripted_loader(int workers) {
    PipelineConfig config = on_sim();
    config.num_workers = workers;
    config.batch_size = 4;
    config.sample_shape.dims = {4};
    config.kernel_us = 0;
    config.d2h_bytes = 0;
    return config;
}

// Real images from `folder` into 3x224x224 samples, collated straight into pinned memory, a 100 us
// kernel: the image tests' pipeline, for `seconds` (0: no bound; the caller sets one).
inline PipelineConfig folder_run(const std::string& folder, int workers, int batch_size, double seconds) {
    PipelineConfig config = on_sim();
    config.dataset = "folder:" + folder;
    config.sample_shape.dims = {3, 224, 224};
    config.batch_size = batch_size;
    config.num_workers = workers;
    config.pin_mode = PinMode::direct;
    config.kernel_us = 100;
    config.d2h_bytes = 4096;
    config.seconds = seconds;
    return config;
}

}  // namespace pinscope::testing
