// JPEG through libjpeg-turbo's TurboJPEG API. Grey and YCbCr decode straight to RGB; CMYK and YCCK
// (Adobe's) decode to CMYK, which is turned to RGB here as PIL does for Adobe's inverted CMYK.
#include <memory>

#include <fmt/format.h>
#include <turbojpeg.h>

#include "core/images/image_decode.h"

namespace pinscope {
namespace {

struct TjDestroy {
    void operator()(void* handle) const { tjDestroy(handle); }
};
using TjHandle = std::unique_ptr<void, TjDestroy>;

[[noreturn]] void fail(tjhandle handle, const char* what) {
    throw ImageError(fmt::format("is not a readable JPEG: {} ({})", what, tjGetErrorStr2(handle)));
}

}  // namespace

RgbImage decode_jpeg(std::span<const uint8_t> file, int64_t max_pixels) {
    const TjHandle handle(tjInitDecompress());
    if (!handle)
        throw ImageError(fmt::format("could not start the JPEG decoder ({})", tjGetErrorStr2(nullptr)));
    int width = 0, height = 0, subsampling = 0, colorspace = 0;
    if (tjDecompressHeader3(handle.get(), file.data(), static_cast<unsigned long>(file.size()), &width,
                            &height, &subsampling, &colorspace) != 0)
        fail(handle.get(), "its header");
    if (width <= 0 || height <= 0) throw ImageError("is not a readable JPEG: its header gives it no pixels");
    if (static_cast<int64_t>(width) * height > max_pixels)
        throw ImageError(fmt::format("is a JPEG of {}x{} pixels, more than the {} megapixels allowed", width,
                                     height, max_pixels >> 20));
    const bool cmyk = colorspace == TJCS_CMYK || colorspace == TJCS_YCCK;
    const int channels = cmyk ? 4 : 3;
    std::vector<uint8_t> decoded(static_cast<size_t>(width) * height * channels);
    // Warnings (a file cut short, a corrupt segment) fail too: such a file is skipped, not half used.
    // LIMITSCANS refuses progressive files with thousands of scans, which take minutes to decode.
    const int flags = TJFLAG_STOPONWARNING | TJFLAG_LIMITSCANS;
    if (tjDecompress2(handle.get(), file.data(), static_cast<unsigned long>(file.size()), decoded.data(),
                      width, 0, height, cmyk ? TJPF_CMYK : TJPF_RGB, flags) != 0)
        fail(handle.get(), "its data");
    RgbImage image{width, height, {}};
    if (!cmyk) {
        image.pixels = std::move(decoded);
        return image;
    }
    image.pixels.resize(static_cast<size_t>(width) * height * 3);
    for (size_t p = 0, n = static_cast<size_t>(width) * height; p < n; ++p) {
        const unsigned k = decoded[p * 4 + 3];
        for (int c = 0; c < 3; ++c)
            image.pixels[p * 3 + c] = static_cast<uint8_t>(decoded[p * 4 + c] * k / 255);
    }
    return image;
}

}  // namespace pinscope
