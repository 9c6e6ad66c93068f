#pragma once
// What a Session is built from, handed in rather than made inside it: the trace it records into, the
// dataset each of its pipelines reads, and the device it runs on. session_parts() makes the ones a config
// asks for; a test hands in a fake dataset or device, and two sessions on two GPUs can record into one
// trace.
#include <functional>
#include <memory>

#include "core/config/pipeline_config.h"
#include "core/device/device_factory.h"
#include "core/pipeline/dataset.h"
#include "core/trace/trace.h"

namespace pinscope {

struct SessionParts {
    std::shared_ptr<Trace> trace;  // shared: several sessions may record into one
    // The dataset a pipeline of `config` reads: called for every pipeline a session builds (a live
    // reconfiguration builds a new one).
    std::function<std::unique_ptr<Dataset>(const PipelineConfig& config)> dataset;
    // The device for `config`, recording into `trace`: called when the session is made and when a
    // reconfiguration asks for another device. Throws as make_device does.
    std::function<DeviceSelection(const PipelineConfig& config, Trace& trace)> device;
};

class ImageFolderTally;

// The dataset `config` asks for: SyntheticImageDataset, or for dataset=folder:PATH an ImageFolderDataset
// counting into `tally` (a fresh one when null). Throws std::invalid_argument for a folder that cannot be
// used (none there, no images in it) or a sample_shape images cannot take.
std::unique_ptr<Dataset> make_dataset(const PipelineConfig& config,
                                      std::shared_ptr<ImageFolderTally> tally = nullptr);

// A fresh trace, make_dataset() and make_device(): what `Session(config)` is built from.
SessionParts session_parts();

}  // namespace pinscope
