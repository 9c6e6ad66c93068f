#include "core/picture/picture_font.h"

#include <fstream>
#include <iterator>
#include <stdexcept>

// stb_truetype's functions become static to this file: Debian's libstb (which the GUI's Dear ImGui
// links) defines the same names.
#define STBTT_STATIC
#define STB_TRUETYPE_IMPLEMENTATION
#include <stb/stb_truetype.h>

#include "core/picture/utf8.h"

namespace pinscope {

struct PictureFont::Impl {
    std::vector<uint8_t> file;
    stbtt_fontinfo info{};

    float scale(double size_px) const {
        return stbtt_ScaleForMappingEmToPixels(&info, static_cast<float>(size_px));
    }
};

const std::vector<std::filesystem::path>& PictureFont::candidates() {
    static const std::vector<std::filesystem::path> paths = {
        "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
        "/usr/share/fonts/opentype/inter/Inter-Regular.otf",
        "/usr/share/fonts/truetype/inter/Inter-Regular.ttf",
    };
    return paths;
}

const PictureFont* PictureFont::system() {
    static const std::unique_ptr<PictureFont> font = []() -> std::unique_ptr<PictureFont> {
        for (const std::filesystem::path& path : candidates()) {
            std::ifstream in(path, std::ios::binary);
            if (!in) continue;
            std::vector<uint8_t> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
            try {
                return std::make_unique<PictureFont>(std::move(file));
            } catch (const std::runtime_error&) {
                continue;  // not a font stb_truetype reads: try the next one
            }
        }
        return nullptr;
    }();
    return font.get();
}

PictureFont::PictureFont(std::vector<uint8_t> file) : impl_(std::make_unique<Impl>()) {
    impl_->file = std::move(file);
    const int offset = impl_->file.empty() ? -1 : stbtt_GetFontOffsetForIndex(impl_->file.data(), 0);
    if (offset < 0 || !stbtt_InitFont(&impl_->info, impl_->file.data(), offset))
        throw std::runtime_error("not a TrueType or OpenType font");
}

PictureFont::~PictureFont() = default;

double PictureFont::advance(char32_t code, double size_px) const {
    int advance = 0, bearing = 0;
    stbtt_GetCodepointHMetrics(&impl_->info, static_cast<int>(code), &advance, &bearing);
    return advance * impl_->scale(size_px);
}

double PictureFont::kerning(char32_t left, char32_t right, double size_px) const {
    return stbtt_GetCodepointKernAdvance(&impl_->info, static_cast<int>(left), static_cast<int>(right)) *
           impl_->scale(size_px);
}

double PictureFont::width(std::string_view text, double size_px) const {
    double width = 0;
    char32_t previous = 0;
    for (size_t at = 0; at < text.size();) {
        const char32_t code = next_code_point(text, at);
        if (previous) width += kerning(previous, code, size_px);
        width += advance(code, size_px);
        previous = code;
    }
    return width;
}

GlyphBitmap PictureFont::render(char32_t code, double size_px) const {
    const float scale = impl_->scale(size_px);
    GlyphBitmap glyph;
    int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    stbtt_GetCodepointBitmapBox(&impl_->info, static_cast<int>(code), scale, scale, &x0, &y0, &x1, &y1);
    if (x1 <= x0 || y1 <= y0) return glyph;  // a space
    glyph.left = x0;
    glyph.top = y0;
    glyph.width = x1 - x0;
    glyph.height = y1 - y0;
    glyph.coverage.resize(static_cast<size_t>(glyph.width) * static_cast<size_t>(glyph.height));
    stbtt_MakeCodepointBitmap(&impl_->info, glyph.coverage.data(), glyph.width, glyph.height, glyph.width,
                              scale, scale, static_cast<int>(code));
    return glyph;
}

double text_width(const PictureFont* font, std::string_view text, double size_px) {
    if (font) return font->width(text, size_px);
    size_t code_points = 0;
    for (size_t at = 0; at < text.size(); ++code_points) next_code_point(text, at);
    return 0.6 * size_px * static_cast<double>(code_points);  // DejaVu Sans averages about 0.6 em
}

}  // namespace pinscope
