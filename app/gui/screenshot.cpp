#include "app/gui/screenshot.h"

#include <stb_image_write.h>

#include <stdexcept>
#include <string>

namespace pinscope::gui {

void save_png(OutputFile& file, const PixelImage& image) {
    if (image.width <= 0 || image.height <= 0) throw std::runtime_error("the window has no pixels to save");
    std::string png;
    const auto append = [](void* context, void* data, int size) {
        static_cast<std::string*>(context)->append(static_cast<const char*>(data), static_cast<size_t>(size));
    };
    if (!stbi_write_png_to_func(append, &png, image.width, image.height, 4, image.rgba.data(),
                                image.width * 4))
        throw std::runtime_error("cannot encode the window as a PNG");
    file.write(png);
}

}  // namespace pinscope::gui
