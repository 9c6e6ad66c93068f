#include "core/picture/raster_canvas.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

// stb_image_write's functions become static to this file: Debian's libstb (which the GUI's Dear ImGui
// links) defines the same names.
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>

#include "core/picture/utf8.h"

namespace pinscope {
namespace {

constexpr int kStripeSpacing = 8;  // pixels along a row between two stripes (about 6 px apart)
constexpr int kStripeWidth = 2;

// How much of the pixel [p, p + 1) the span [a, b) covers.
double coverage(int p, double a, double b) {
    return std::clamp(std::min(b, p + 1.0) - std::max(a, double(p)), 0.0, 1.0);
}

}  // namespace

RasterCanvas::RasterCanvas(int width, int height, Rgb background, const PictureFont* font)
    : width_(width), height_(height), font_(font), pixels_(static_cast<size_t>(width) * height * 4) {
    for (size_t i = 0; i < pixels_.size(); i += 4) {
        pixels_[i] = background.r;
        pixels_[i + 1] = background.g;
        pixels_[i + 2] = background.b;
        pixels_[i + 3] = 255;
    }
}

void RasterCanvas::blend(int x, int y, Rgb colour, double alpha) {
    if (x < 0 || y < 0 || x >= width_ || y >= height_ || alpha <= 0) return;
    uint8_t* p = &pixels_[(static_cast<size_t>(y) * width_ + x) * 4];
    if (alpha >= 1) {
        p[0] = colour.r;
        p[1] = colour.g;
        p[2] = colour.b;
        return;
    }
    const auto mix = [alpha](uint8_t below, uint8_t above) {
        return static_cast<uint8_t>(std::lround(below + (above - below) * alpha));
    };
    p[0] = mix(p[0], colour.r);
    p[1] = mix(p[1], colour.g);
    p[2] = mix(p[2], colour.b);
}

void RasterCanvas::fill(const Box& box, Rgb colour, double alpha) {
    const int x0 = std::max(0, static_cast<int>(std::floor(box.x0)));
    const int x1 = std::min(width_, static_cast<int>(std::ceil(box.x1)));
    const int y0 = std::max(0, static_cast<int>(std::floor(box.y0)));
    const int y1 = std::min(height_, static_cast<int>(std::ceil(box.y1)));
    for (int y = y0; y < y1; ++y) {
        const double cover_y = coverage(y, box.y0, box.y1);
        for (int x = x0; x < x1; ++x) blend(x, y, colour, alpha * cover_y * coverage(x, box.x0, box.x1));
    }
}

void RasterCanvas::outline(const Box& box, Rgb colour, double width) {
    const double w = std::min({width, box.width() / 2, box.height() / 2});
    if (w <= 0) return;
    fill({box.x0, box.y0, box.x1, box.y0 + w}, colour);
    fill({box.x0, box.y1 - w, box.x1, box.y1}, colour);
    fill({box.x0, box.y0 + w, box.x0 + w, box.y1 - w}, colour);
    fill({box.x1 - w, box.y0 + w, box.x1, box.y1 - w}, colour);
}

void RasterCanvas::hatch(const Box& box, Rgb colour) {
    // Stripes where x + y falls on a multiple of the spacing: lines going up to the right, anchored to
    // the picture, so neighbouring boxes continue each other's stripes.
    const int x0 = std::max(0, static_cast<int>(std::lround(box.x0)));
    const int x1 = std::min(width_, static_cast<int>(std::lround(box.x1)));
    const int y0 = std::max(0, static_cast<int>(std::lround(box.y0)));
    const int y1 = std::min(height_, static_cast<int>(std::lround(box.y1)));
    for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x)
            if ((x + y) % kStripeSpacing < kStripeWidth) blend(x, y, colour, 1);
}

const GlyphBitmap& RasterCanvas::glyph(char32_t code, double size_px) {
    const int size_key = static_cast<int>(std::lround(size_px * 8));
    auto [it, added] = glyphs_.try_emplace({code, size_key});
    if (added) it->second = font_->render(code, size_key / 8.0);
    return it->second;
}

void RasterCanvas::text(double x, double baseline, std::string_view text, double size_px, Rgb colour,
                        TextAnchor anchor) {
    if (!font_ || text.empty()) return;
    const double size = std::lround(size_px * 8) / 8.0;  // the size the glyph cache holds
    if (anchor != TextAnchor::start) x -= font_->width(text, size) * (anchor == TextAnchor::middle ? 0.5 : 1);
    const int base = static_cast<int>(std::lround(baseline));
    double pen = x;
    char32_t previous = 0;
    for (size_t at = 0; at < text.size();) {
        const char32_t code = next_code_point(text, at);
        if (previous) pen += font_->kerning(previous, code, size);
        const GlyphBitmap& g = glyph(code, size);
        const int left = static_cast<int>(std::lround(pen)) + g.left, top = base + g.top;
        for (int row = 0; row < g.height; ++row)
            for (int col = 0; col < g.width; ++col)
                if (const uint8_t c = g.coverage[static_cast<size_t>(row) * g.width + col])
                    blend(left + col, top + row, colour, c / 255.0);
        pen += font_->advance(code, size);
        previous = code;
    }
}

std::vector<uint8_t> RasterCanvas::png() const {
    std::vector<uint8_t> bytes;
    const auto append = [](void* context, void* data, int size) {
        auto* out = static_cast<std::vector<uint8_t>*>(context);
        const auto* begin = static_cast<const uint8_t*>(data);
        out->insert(out->end(), begin, begin + size);
    };
    if (!stbi_write_png_to_func(append, &bytes, width_, height_, 4, pixels_.data(), width_ * 4))
        throw std::runtime_error("could not encode the picture as PNG");
    return bytes;
}

}  // namespace pinscope
