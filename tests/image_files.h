#pragma once
// Image files made at test time (nothing large is committed): JPEGs as pinscope makes its sample folder
// (core/images/sample_jpegs.h, which also writes folders of them) and PNGs through libpng's simplified
// writer, of the same photo-like picture.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <png.h>

#include "core/images/sample_jpegs.h"

namespace pinscope::testing {

// A JPEG of `width` x `height`: RGB (channels 3), grey (1) or CMYK (4), quality 85.
inline std::vector<uint8_t> make_jpeg(int width, int height, uint64_t seed, int channels = 3) {
    return photo_like_jpeg(width, height, seed, channels);
}

// A PNG of `width` x `height`: RGB (channels 3) or grey (1), 8 bits.
inline std::vector<uint8_t> make_png(int width, int height, uint64_t seed, int channels = 3) {
    const std::vector<uint8_t> pixels = photo_like_pixels(width, height, seed, channels);
    png_image image{};
    image.version = PNG_IMAGE_VERSION;
    image.width = static_cast<png_uint_32>(width);
    image.height = static_cast<png_uint_32>(height);
    image.format = channels == 1 ? PNG_FORMAT_GRAY : PNG_FORMAT_RGB;
    png_alloc_size_t size = 0;
    if (!png_image_write_to_memory(&image, nullptr, &size, 0, pixels.data(), 0, nullptr))
        throw std::runtime_error("png_image_write_to_memory failed");
    std::vector<uint8_t> file(size);
    if (!png_image_write_to_memory(&image, file.data(), &size, 0, pixels.data(), 0, nullptr))
        throw std::runtime_error("png_image_write_to_memory failed");
    file.resize(size);
    return file;
}

inline void write_bytes(const std::filesystem::path& path, const std::vector<uint8_t>& bytes) {
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace pinscope::testing
