#include "core/model/folder_sample_cost.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <vector>

#include "core/pipeline/image_folder_dataset.h"
#include "core/pipeline/session_parts.h"
#include "core/trace/clock.h"

namespace pinscope {

double folder_sample_us(const PipelineConfig& config) {
    const std::optional<std::string> folder = dataset_folder(config);
    if (!folder) return 0;
    static std::mutex mutex;
    static std::map<std::pair<std::string, std::string>, double> measured;
    const auto key = std::make_pair(*folder, config.sample_shape.to_string());
    std::lock_guard lock(mutex);
    if (auto it = measured.find(key); it != measured.end()) return it->second;

    PipelineConfig plain = config;  // the files' own cost: none added
    plain.decode_us = plain.io_us = 0;
    plain.slow_motion = 1;
    const std::unique_ptr<Dataset> dataset = make_dataset(plain);
    std::vector<std::byte> out(static_cast<size_t>(dataset->sample_bytes()));
    const std::atomic<bool> stop{false};
    std::vector<double> us;
    for (int64_t i = 0; i < 32; ++i) {
        const TimeNs start = now_ns();
        try {
            dataset->fetch(i, out.data(), stop);
        } catch (const DatasetError&) {  // nothing readable: the run will say so; the model costs nothing
            break;
        }
        us.push_back(static_cast<double>(now_ns() - start) * 1e-3);
    }
    double median = 0;
    if (!us.empty()) {
        std::nth_element(us.begin(), us.begin() + static_cast<std::ptrdiff_t>(us.size() / 2), us.end());
        median = us[us.size() / 2];
    }
    measured[key] = median;
    return median;
}

PipelineConfig with_measured_sample_cost(const PipelineConfig& config) {
    PipelineConfig modelled = config;
    modelled.decode_us += folder_sample_us(config);
    return modelled;
}

}  // namespace pinscope
