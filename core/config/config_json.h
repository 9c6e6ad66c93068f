#pragma once
// PipelineConfig <-> JSON. Keys are the field names of PipelineConfig; a file may hold any subset and
// the rest keep the values of `base`. Unknown keys, wrong types and unparsable files are errors that
// name the key (or the position) and what was expected.
#include <filesystem>
#include <stdexcept>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "core/config/pipeline_config.h"
#include "core/files/output_file.h"

namespace pinscope {

class ConfigFileError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

nlohmann::json config_to_json(const PipelineConfig& config);
PipelineConfig config_from_json(const nlohmann::json& json, const PipelineConfig& base = {});

PipelineConfig load_config(const std::filesystem::path& path, const PipelineConfig& base = {});
// Writes the config as JSON to `file`, whole or not at all (core/files/output_file.h).
void save_config(OutputFile& file, const PipelineConfig& config);
// The same to a path not checked before: also throws OutputPathError for a path that cannot be written.
void save_config(const std::filesystem::path& path, const PipelineConfig& config);

}  // namespace pinscope
