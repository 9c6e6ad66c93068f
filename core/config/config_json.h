#pragma once
// PipelineConfig <-> JSON. Keys are the field names of PipelineConfig; a file may hold any subset and
// the rest keep the values of `base`. Unknown keys, wrong types and unparsable files are errors that
// name the key (or the position) and what was expected.
#include <filesystem>
#include <stdexcept>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "core/config/pipeline_config.h"

namespace pinscope {

class ConfigFileError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

nlohmann::json config_to_json(const PipelineConfig& config);
PipelineConfig config_from_json(const nlohmann::json& json, const PipelineConfig& base = {});

PipelineConfig load_config(const std::filesystem::path& path, const PipelineConfig& base = {});
// Writes to a temporary file beside `path` and renames it, so a failure never leaves half a file.
void save_config(const std::filesystem::path& path, const PipelineConfig& config);

}  // namespace pinscope
