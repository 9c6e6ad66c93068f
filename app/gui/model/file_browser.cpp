#include "app/gui/model/file_browser.h"

#include <algorithm>

#include <unistd.h>

namespace pinscope::gui {

namespace fs = std::filesystem;

fs::path working_folder() {
    std::error_code ec;
    fs::path folder = fs::current_path(ec);
    return ec ? fs::path(".") : folder;
}

FileBrowser::FileBrowser(fs::path folder, std::string extension) : extension_(std::move(extension)) {
    go_to(std::move(folder));
}

void FileBrowser::go_to(const fs::path& folder) {
    std::error_code ec;
    fs::path absolute = fs::weakly_canonical(folder.empty() ? fs::path(".") : folder, ec);
    folder_ = ec ? folder : absolute;
    refresh();
}

void FileBrowser::enter(const std::string& name) {
    go_to(folder_ / name);
}

void FileBrowser::up() {
    if (folder_.has_parent_path() && folder_.parent_path() != folder_) go_to(folder_.parent_path());
}

void FileBrowser::refresh() {
    entries_.clear();
    listing_error_.clear();
    std::error_code ec;
    fs::directory_iterator it(folder_, fs::directory_options::skip_permission_denied, ec);
    if (ec) {
        listing_error_ = "cannot list " + folder_.string() + ": " + ec.message();
        return;
    }
    for (; it != fs::directory_iterator(); it.increment(ec)) {
        if (ec) break;
        const fs::directory_entry& entry = *it;
        std::string name = entry.path().filename().string();
        if (name.empty() || name[0] == '.') continue;  // hidden files stay hidden, as in most dialogs
        std::error_code type_ec;
        if (entry.is_directory(type_ec)) {
            entries_.push_back({std::move(name), true, 0});
        } else if (entry.path().extension() == extension_) {
            std::error_code size_ec;
            const uintmax_t bytes = entry.file_size(size_ec);
            entries_.push_back({std::move(name), false, size_ec ? 0 : bytes});
        }
    }
    std::sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) {
        return a.folder != b.folder ? a.folder : a.name < b.name;
    });
}

fs::path FileBrowser::chosen() const {
    fs::path name = file_name;
    if (name.extension() != extension_) name += extension_;
    return folder_ / name;
}

std::string FileBrowser::problem() const {
    if (file_name.empty()) return "type a file name";
    if (file_name.find('/') != std::string::npos)
        return "a file name cannot contain '/'; pick the folder above";
    std::error_code ec;
    if (!fs::is_directory(folder_, ec)) return folder_.string() + " is not a folder";
    if (::access(folder_.c_str(), W_OK) != 0)
        return "cannot write in " + folder_.string() + "; pick another folder";
    if (fs::is_directory(chosen(), ec)) return chosen().string() + " is a folder";
    return {};
}

}  // namespace pinscope::gui
