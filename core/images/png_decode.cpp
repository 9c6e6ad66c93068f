// PNG through libpng's progressive-free "read" API with its errors turned into ImageError: libpng
// reports a fault by longjmp, so the only C++ objects alive across png_read_* calls are plain buffers
// owned outside the setjmp frame, and the exception is thrown after the jump.
#include <csetjmp>
#include <cstring>
#include <string>

#include <fmt/format.h>
#include <png.h>

#include "core/images/image_decode.h"

namespace pinscope {
namespace {

struct Reader {
    std::span<const uint8_t> file;
    size_t at = 0;
    char message[200] = "";
};

void read_bytes(png_structp png, png_bytep out, png_size_t n) {
    Reader& r = *static_cast<Reader*>(png_get_io_ptr(png));
    if (n > r.file.size() - r.at) png_error(png, "the file ends early");
    std::memcpy(out, r.file.data() + r.at, n);
    r.at += n;
}

void on_error(png_structp png, png_const_charp message) {
    Reader& r = *static_cast<Reader*>(png_get_error_ptr(png));
    std::snprintf(r.message, sizeof r.message, "%s", message);
    png_longjmp(png, 1);
}

void on_warning(png_structp, png_const_charp) {}

// Owns libpng's structs; destroyed after any longjmp has landed.
struct PngRead {
    png_structp png = nullptr;
    png_infop info = nullptr;
    ~PngRead() { png_destroy_read_struct(&png, info ? &info : nullptr, nullptr); }
};

}  // namespace

RgbImage decode_png(std::span<const uint8_t> file, int64_t max_pixels) {
    Reader reader{file};
    PngRead read;
    read.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &reader, on_error, on_warning);
    if (!read.png) throw ImageError("could not start the PNG decoder");
    read.info = png_create_info_struct(read.png);
    if (!read.info) throw ImageError("could not start the PNG decoder");
    RgbImage image;
    std::vector<png_bytep> rows;
    bool too_big = false;
    if (setjmp(png_jmpbuf(read.png)) == 0) {
        png_set_read_fn(read.png, &reader, read_bytes);
        // libpng's own limits as well as ours: no chunk may claim more than 8 MiB of memory.
        png_set_user_limits(read.png, 1 << 24, 1 << 24);
        png_set_chunk_malloc_max(read.png, 8 << 20);
        png_read_info(read.png, read.info);
        const png_uint_32 width = png_get_image_width(read.png, read.info);
        const png_uint_32 height = png_get_image_height(read.png, read.info);
        if (static_cast<int64_t>(width) * height > max_pixels) {
            too_big = true;
            image.width = static_cast<int>(width), image.height = static_cast<int>(height);
        } else {
            // Whatever it holds, read 8-bit RGB: palettes and grey expanded, 16 bits cut, alpha dropped.
            png_set_expand(read.png);
            png_set_strip_16(read.png);
            png_set_gray_to_rgb(read.png);
            png_set_strip_alpha(read.png);
            png_set_interlace_handling(read.png);
            png_read_update_info(read.png, read.info);
            if (png_get_rowbytes(read.png, read.info) != static_cast<size_t>(width) * 3)
                png_error(read.png, "it does not decode to 8-bit RGB");
            image.width = static_cast<int>(width), image.height = static_cast<int>(height);
            image.pixels.resize(static_cast<size_t>(width) * height * 3);
            rows.resize(height);
            for (png_uint_32 y = 0; y < height; ++y)
                rows[y] = image.pixels.data() + static_cast<size_t>(y) * width * 3;
            png_read_image(read.png, rows.data());
            png_read_end(read.png, nullptr);
        }
    } else {
        throw ImageError(fmt::format("is not a readable PNG: {}", reader.message));
    }
    if (too_big)
        throw ImageError(fmt::format("is a PNG of {}x{} pixels, more than the {} megapixels allowed",
                                     image.width, image.height, max_pixels >> 20));
    return image;
}

}  // namespace pinscope
