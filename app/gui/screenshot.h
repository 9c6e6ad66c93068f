#pragma once
// --screenshot: the window's pixels as a PNG (stb_image_write from Debian's libstb).
#include <filesystem>

#include "app/gui/app_window.h"

namespace pinscope::gui {

// Written beside `path` and renamed over it, so a failure leaves no half file. Throws
// std::runtime_error saying what to fix.
void save_png(const std::filesystem::path& path, const PixelImage& image);

}  // namespace pinscope::gui
