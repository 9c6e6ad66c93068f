#pragma once
// A PictureCanvas that draws into an RGBA buffer in memory, a small software rasterizer: filled boxes
// (their edges covered in proportion, so fractional coordinates blend), the hatching as pixel-exact
// diagonal stripes, text from a TrueType font's glyphs. No window, no GPU. Without a font it draws no
// text.
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "core/picture/picture_canvas.h"
#include "core/picture/picture_font.h"

namespace pinscope {

class RasterCanvas final : public PictureCanvas {
  public:
    RasterCanvas(int width, int height, Rgb background, const PictureFont* font);

    void fill(const Box& box, Rgb colour, double alpha = 1) override;
    void outline(const Box& box, Rgb colour, double width) override;
    void hatch(const Box& box, Rgb colour) override;
    void text(double x, double baseline, std::string_view text, double size_px, Rgb colour,
              TextAnchor anchor = TextAnchor::start) override;

    int width() const { return width_; }
    int height() const { return height_; }
    const std::vector<uint8_t>& rgba() const { return pixels_; }  // row by row, 4 bytes a pixel
    // The picture as PNG bytes (RGBA).
    std::vector<uint8_t> png() const;

  private:
    void blend(int x, int y, Rgb colour, double alpha);
    const GlyphBitmap& glyph(char32_t code, double size_px);

    int width_, height_;
    const PictureFont* font_;
    std::vector<uint8_t> pixels_;
    std::map<std::pair<char32_t, int>, GlyphBitmap> glyphs_;  // by code point and size in 1/8 px
};

}  // namespace pinscope
