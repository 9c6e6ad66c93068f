#include "app/gui/model/recent_files.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/files/atomic_file.h"

namespace pinscope::gui {

std::filesystem::path default_recent_list() {
    if (const char* config = std::getenv("XDG_CONFIG_HOME"); config && *config)
        return std::filesystem::path(config) / "pinscope" / "recent.json";
    if (const char* home = std::getenv("HOME"); home && *home)
        return std::filesystem::path(home) / ".config" / "pinscope" / "recent.json";
    return {};
}

RecentFiles::RecentFiles(std::filesystem::path list) : list_(std::move(list)) {
    if (list_.empty()) return;
    std::ifstream in(list_);
    if (!in) return;
    const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    if (!j.is_array()) return;
    for (const nlohmann::json& entry : j)
        if (entry.is_string() && files_.size() < kMaxFiles) files_.emplace_back(entry.get<std::string>());
}

void RecentFiles::add(const std::filesystem::path& file) {
    std::error_code ignored;
    std::filesystem::path absolute = std::filesystem::absolute(file, ignored);
    if (absolute.empty()) absolute = file;
    absolute = absolute.lexically_normal();
    std::erase(files_, absolute);
    files_.insert(files_.begin(), absolute);
    if (files_.size() > kMaxFiles) files_.resize(kMaxFiles);
    save();
}

void RecentFiles::forget(const std::filesystem::path& file) {
    if (std::erase(files_, file)) save();
}

void RecentFiles::save() const {
    if (list_.empty()) return;
    nlohmann::json j = nlohmann::json::array();
    for (const std::filesystem::path& file : files_) j.push_back(file.string());
    try {
        std::filesystem::create_directories(list_.parent_path());
        write_file_atomically(list_, "the recent files", j.dump(1) + "\n");
    } catch (const std::exception&) {
        // Not remembered: the next start shows an older list, and nothing else is lost.
    }
}

}  // namespace pinscope::gui
