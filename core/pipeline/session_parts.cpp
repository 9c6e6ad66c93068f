#include "core/pipeline/session_parts.h"

#include "core/pipeline/image_folder_dataset.h"

namespace pinscope {

std::unique_ptr<Dataset> make_dataset(const PipelineConfig& config, std::shared_ptr<ImageFolderTally> tally) {
    if (const std::optional<std::string> folder = dataset_folder(config)) {
        if (!tally) tally = std::make_shared<ImageFolderTally>();
        return std::make_unique<ImageFolderDataset>(config, list_image_folder(*folder), std::move(tally));
    }
    return std::make_unique<SyntheticImageDataset>(config);
}

SessionParts session_parts() {
    SessionParts parts;
    parts.trace = std::make_shared<Trace>();
    // One tally for every pipeline of the session: a reconfiguration keeps counting.
    parts.dataset = [tally = std::make_shared<ImageFolderTally>()](const PipelineConfig& config) {
        return make_dataset(config, tally);
    };
    parts.device = [](const PipelineConfig& config, Trace& trace) { return make_device(config, trace); };
    return parts;
}

}  // namespace pinscope
