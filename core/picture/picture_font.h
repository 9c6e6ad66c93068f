#pragma once
// A TrueType font found on the system, for measuring and drawing the text of a picture. Loaded once per
// process; immutable afterwards, so threads may share it (each RasterCanvas keeps its own glyph cache).
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string_view>
#include <vector>

namespace pinscope {

// One glyph drawn at one size: a coverage bitmap (0..255) placed relative to the pen on the baseline.
struct GlyphBitmap {
    int left = 0, top = 0;  // offset of the bitmap's top-left corner from the pen (top is negative: above)
    int width = 0, height = 0;
    std::vector<uint8_t> coverage;  // width * height
};

class PictureFont {
  public:
    // Where the pictures look for a font, in order: DejaVu Sans (fonts-dejavu-core), then Inter.
    static const std::vector<std::filesystem::path>& candidates();
    // The first candidate that exists and parses; nullptr when there is none.
    static const PictureFont* system();

    explicit PictureFont(std::vector<uint8_t> file);  // throws std::runtime_error if it is no font
    ~PictureFont();
    PictureFont(const PictureFont&) = delete;
    PictureFont& operator=(const PictureFont&) = delete;

    // The advance of a UTF-8 text at `size_px` (the em size, as CSS font-size), with kerning.
    double width(std::string_view text, double size_px) const;
    double advance(char32_t code, double size_px) const;
    double kerning(char32_t left, char32_t right, double size_px) const;
    GlyphBitmap render(char32_t code, double size_px) const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// How wide a text is drawn: by the font's metrics, or a close guess for DejaVu Sans without one.
double text_width(const PictureFont* font, std::string_view text, double size_px);

}  // namespace pinscope
