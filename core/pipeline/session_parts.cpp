#include "core/pipeline/session_parts.h"

namespace pinscope {

std::unique_ptr<Dataset> make_dataset(const PipelineConfig& config) {
    return std::make_unique<SyntheticImageDataset>(config);
}

SessionParts session_parts() {
    SessionParts parts;
    parts.trace = std::make_shared<Trace>();
    parts.dataset = make_dataset;
    parts.device = [](const PipelineConfig& config, Trace& trace) { return make_device(config, trace); };
    return parts;
}

}  // namespace pinscope
