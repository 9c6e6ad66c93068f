#pragma once
// Image files made at test time (nothing large is committed): JPEGs through TurboJPEG and PNGs through
// libpng's simplified writer, of a picture with gradients, edges and noise, so that they compress and decode
// like photographs rather than flat colour.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <png.h>
#include <turbojpeg.h>

namespace pinscope::testing {

inline std::vector<uint8_t> test_picture(int width, int height, uint64_t seed, int channels = 3) {
    std::vector<uint8_t> pixels(static_cast<size_t>(width) * height * channels);
    uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x)
            for (int c = 0; c < channels; ++c) {
                state ^= state << 13, state ^= state >> 7, state ^= state << 17;
                const int ring =
                    ((x - width / 2) * (x - width / 2) + (y - height / 3) * (y - height / 3)) / 97;
                const int value =
                    (x * (c + 1) + y * (3 - c)) / 3 + (ring % 2) * 60 + static_cast<int>(state % 24);
                pixels[(static_cast<size_t>(y) * width + x) * channels + c] =
                    static_cast<uint8_t>(value & 0xFF);
            }
    return pixels;
}

// A JPEG of `width` x `height`: RGB (channels 3), grey (1) or CMYK (4), quality 85.
inline std::vector<uint8_t> make_jpeg(int width, int height, uint64_t seed, int channels = 3) {
    const std::vector<uint8_t> pixels = test_picture(width, height, seed, channels);
    tjhandle handle = tjInitCompress();
    unsigned char* jpeg = nullptr;
    unsigned long size = 0;
    const int format = channels == 1 ? TJPF_GRAY : channels == 4 ? TJPF_CMYK : TJPF_RGB;
    const int subsampling = channels == 1 ? TJSAMP_GRAY : TJSAMP_420;
    const int failed =
        tjCompress2(handle, pixels.data(), width, 0, height, format, &jpeg, &size, subsampling, 85, 0);
    std::vector<uint8_t> file;
    if (!failed) file.assign(jpeg, jpeg + size);
    tjFree(jpeg);
    tjDestroy(handle);
    if (failed) throw std::runtime_error("tjCompress2 failed");
    return file;
}

// A PNG of `width` x `height`: RGB (channels 3) or grey (1), 8 bits.
inline std::vector<uint8_t> make_png(int width, int height, uint64_t seed, int channels = 3) {
    const std::vector<uint8_t> pixels = test_picture(width, height, seed, channels);
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

// `count` JPEGs of `width` x `height` in `folder` (made if missing): img00000.jpg, img00001.jpg, ...
inline void write_jpeg_folder(const std::filesystem::path& folder, int count, int width, int height) {
    std::filesystem::create_directories(folder);
    char name[32];
    for (int i = 0; i < count; ++i) {
        std::snprintf(name, sizeof name, "img%05d.jpg", i);
        write_bytes(folder / name, make_jpeg(width, height, static_cast<uint64_t>(i)));
    }
}

}  // namespace pinscope::testing
