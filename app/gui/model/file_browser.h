#pragma once
// The state of the Save dialog, which the app draws itself in ImGui (no toolkit dependency): a
// folder, its entries (folders first, then files with the wanted extension), a file name, and
// whether a file can be written there. Never throws: a folder that cannot be listed is an error
// message, and the dialog stays usable.
#include <filesystem>
#include <string>
#include <vector>

namespace pinscope::gui {

// The working folder, or "." when it cannot be known (e.g. it was deleted under us): never throws.
std::filesystem::path working_folder();

class FileBrowser {
  public:
    struct Entry {
        std::string name;
        bool folder = false;
        uintmax_t bytes = 0;
    };

    explicit FileBrowser(std::filesystem::path folder, std::string extension = ".json");

    const std::filesystem::path& folder() const { return folder_; }
    const std::vector<Entry>& entries() const { return entries_; }
    const std::string& listing_error() const { return listing_error_; }

    void enter(const std::string& name);  // a subfolder of folder()
    void up();
    void go_to(const std::filesystem::path& folder);
    void refresh();

    std::string file_name;  // what the user typed; the extension is added when missing

    // folder() / file_name, with the extension.
    std::filesystem::path chosen() const;
    // Empty when chosen() can be written; else why not, in words a user can act on.
    std::string problem() const;

  private:
    std::filesystem::path folder_;
    std::string extension_;
    std::vector<Entry> entries_;
    std::string listing_error_;
};

}  // namespace pinscope::gui
