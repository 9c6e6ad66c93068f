#pragma once
// The captures opened lately, newest first, for File > Open recent: kept in
// $XDG_CONFIG_HOME/pinscope/recent.json (~/.config/pinscope/recent.json), so they survive the app.
// A missing or damaged list is an empty one, and a list that cannot be saved is only not remembered:
// neither is worth interrupting anyone for.
#include <filesystem>
#include <vector>

namespace pinscope::gui {

// Where the list lives; empty when neither XDG_CONFIG_HOME nor HOME is set.
std::filesystem::path default_recent_list();

class RecentFiles {
  public:
    static constexpr size_t kMaxFiles = 10;

    explicit RecentFiles(std::filesystem::path list = default_recent_list());

    const std::vector<std::filesystem::path>& files() const { return files_; }
    // To the front (once), dropping the oldest past kMaxFiles; saved at once.
    void add(const std::filesystem::path& file);
    void forget(const std::filesystem::path& file);

  private:
    void save() const;

    std::filesystem::path list_;
    std::vector<std::filesystem::path> files_;
};

}  // namespace pinscope::gui
