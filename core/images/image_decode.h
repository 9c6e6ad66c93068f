#pragma once
// Decoding an image file a stranger gave: JPEG (baseline, progressive; grey, YCbCr, CMYK) and PNG (any
// bit depth, palette, grey, alpha), always to 8-bit RGB, as PIL's convert("RGB") gives torchvision.
// Every fault is an ImageError with one line saying what is wrong; nothing is allocated before the
// header's size has passed the pixel cap, so a decompression bomb (a small file that claims a huge
// picture) is refused before it costs memory.
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace pinscope {

class ImageError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

struct RgbImage {
    int width = 0, height = 0;
    std::vector<uint8_t> pixels;  // width * height * 3, rows top to bottom
};

// 64 megapixels: far above any training image (ImageNet's largest is about 20), far below what would
// exhaust a worker's memory (192 MiB decoded).
constexpr int64_t kMaxImagePixels = int64_t{64} << 20;

// JPEG or PNG, told by the file's first bytes. Throws ImageError.
RgbImage decode_image(std::span<const uint8_t> file, int64_t max_pixels = kMaxImagePixels);

// The two decoders (jpeg_decode.cpp, png_decode.cpp), for a file whose kind is known.
RgbImage decode_jpeg(std::span<const uint8_t> file, int64_t max_pixels);
RgbImage decode_png(std::span<const uint8_t> file, int64_t max_pixels);

// Whether a name ends as the files decode_image reads do (.jpg, .jpeg, .png, any case).
bool has_image_extension(const std::string& name);

}  // namespace pinscope
