#pragma once
// A Save or Open dialog drawn in ImGui over a FileBrowser (std::filesystem only, no toolkit): folders
// to walk, the files already there, a name, and why a file cannot be written (or read) before Save (or
// Open) is pressed.
#include <filesystem>
#include <optional>

#include "app/gui/model/file_browser.h"
#include "app/gui/model/span_palette.h"

namespace pinscope::gui {

class FileDialog {
  public:
    explicit FileDialog(std::vector<std::string> extensions, FileBrowser::Mode mode = FileBrowser::Mode::save)
        : browser_(working_folder(), std::move(extensions), mode) {}

    void open(const std::filesystem::path& suggestion);
    bool is_open() const { return open_; }
    // Draws the dialog while open; returns the path once Save (or Open) is pressed.
    std::optional<std::filesystem::path> draw(const char* title, Theme theme);

  private:
    FileBrowser browser_;
    bool open_ = false;
    bool focus_ = false;
};

}  // namespace pinscope::gui
