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

namespace {

bool has_extension(const fs::path& file, const std::vector<std::string>& extensions) {
    return std::find(extensions.begin(), extensions.end(), file.extension().string()) != extensions.end();
}

}  // namespace

FileBrowser::FileBrowser(fs::path folder, std::vector<std::string> extensions, Mode mode)
    : extensions_(std::move(extensions)), mode_(mode) {
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
        } else if (has_extension(entry.path(), extensions_)) {
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
    if (!has_extension(name, extensions_) && !extensions_.empty()) name += extensions_.front();
    return folder_ / name;
}

std::string FileBrowser::problem() const {
    if (file_name.empty()) return "type a file name";
    if (file_name.find('/') != std::string::npos)
        return "a file name cannot contain '/'; pick the folder above";
    std::error_code ec;
    if (!fs::is_directory(folder_, ec)) return folder_.string() + " is not a folder";
    if (mode_ == Mode::open) {
        if (fs::is_directory(chosen(), ec)) return chosen().string() + " is a folder";
        if (!fs::exists(chosen(), ec)) return "no file " + chosen().filename().string() + " here";
        if (::access(chosen().c_str(), R_OK) != 0) return "cannot read " + chosen().string();
        return {};
    }
    if (::access(folder_.c_str(), W_OK) != 0)
        return "cannot write in " + folder_.string() + "; pick another folder";
    if (fs::is_directory(chosen(), ec)) return chosen().string() + " is a folder";
    return {};
}

}  // namespace pinscope::gui
