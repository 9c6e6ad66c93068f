#pragma once
// --screenshot: the window's pixels as a PNG (stb_image_write from Debian's libstb).
#include <filesystem>

#include "app/gui/app_window.h"
#include "core/files/output_file.h"

namespace pinscope::gui {

// Written whole or not at all (core/files/output_file.h). Throws std::runtime_error saying what to fix.
void save_png(OutputFile& file, const PixelImage& image);

}  // namespace pinscope::gui
