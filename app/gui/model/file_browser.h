#pragma once
// The state of the Save and Open dialogs, which the app draws itself in ImGui (no toolkit dependency):
// a folder, its entries (folders first, then files with the wanted extensions), a file name, and
// whether that file can be written (Save) or read (Open). Never throws: a folder that cannot be
// listed is an error message, and the dialog stays usable.
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

    enum class Mode { save, open };

    // `extensions`: the files listed; the first is added to a typed name that has none of them.
    explicit FileBrowser(std::filesystem::path folder, std::vector<std::string> extensions = {".json"},
                         Mode mode = Mode::save);
    Mode mode() const { return mode_; }

    const std::filesystem::path& folder() const { return folder_; }
    const std::vector<Entry>& entries() const { return entries_; }
    const std::string& listing_error() const { return listing_error_; }

    void enter(const std::string& name);  // a subfolder of folder()
    void up();
    void go_to(const std::filesystem::path& folder);
    void refresh();

    std::string file_name;  // what the user typed; the extension is added when missing

    // folder() / file_name, with an extension.
    std::filesystem::path chosen() const;
    // Empty when chosen() can be written (Save) or read (Open); else why not, in words a user can act on.
    std::string problem() const;

  private:
    std::filesystem::path folder_;
    std::vector<std::string> extensions_;
    Mode mode_;
    std::vector<Entry> entries_;
    std::string listing_error_;
};

}  // namespace pinscope::gui
