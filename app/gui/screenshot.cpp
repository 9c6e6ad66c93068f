#include "app/gui/screenshot.h"

#include <stb_image_write.h>

#include <stdexcept>
#include <system_error>

namespace pinscope::gui {

void save_png(const std::filesystem::path& path, const PixelImage& image) {
    if (image.width <= 0 || image.height <= 0) throw std::runtime_error("the window has no pixels to save");
    std::filesystem::path temporary = path;
    temporary += ".part";
    if (!stbi_write_png(temporary.c_str(), image.width, image.height, 4, image.rgba.data(),
                        image.width * 4)) {
        std::error_code ignored;
        std::filesystem::remove(temporary, ignored);
        throw std::runtime_error("cannot write " + path.string() +
                                 "; check that its folder exists and is writable");
    }
    std::error_code ec;
    std::filesystem::rename(temporary, path, ec);
    if (ec) {
        std::filesystem::remove(temporary, ec);
        throw std::runtime_error("cannot write " + path.string() + ": " + ec.message());
    }
}

}  // namespace pinscope::gui
