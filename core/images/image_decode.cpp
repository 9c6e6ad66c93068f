#include "core/images/image_decode.h"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace pinscope {

RgbImage decode_image(std::span<const uint8_t> file, int64_t max_pixels) {
    static constexpr uint8_t kJpeg[] = {0xFF, 0xD8, 0xFF};
    static constexpr uint8_t kPng[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    if (file.size() >= sizeof kJpeg && std::memcmp(file.data(), kJpeg, sizeof kJpeg) == 0)
        return decode_jpeg(file, max_pixels);
    if (file.size() >= sizeof kPng && std::memcmp(file.data(), kPng, sizeof kPng) == 0)
        return decode_png(file, max_pixels);
    if (file.empty()) throw ImageError("is empty");
    throw ImageError("is neither a JPEG nor a PNG image (it does not start as one)");
}

bool has_image_extension(const std::string& name) {
    std::string lower = name;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    for (const char* ext : {".jpg", ".jpeg", ".png"}) {
        const size_t n = std::strlen(ext);
        if (lower.size() > n && lower.compare(lower.size() - n, n, ext) == 0) return true;
    }
    return false;
}

}  // namespace pinscope
