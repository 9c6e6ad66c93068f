#include "core/fonts/font_check.h"

#include <ft2build.h>
#include FT_FREETYPE_H

#include <memory>

#include <fmt/format.h>

#include "core/files/input_file.h"

namespace pinscope {
namespace {

// Every character the app draws: printable ASCII, and the three Latin-1 signs its labels use.
constexpr char32_t kExtraCharacters[] = {U'\u00AB', U'\u00BB', U'\u00B7'};  // « » ·

struct LibraryDone {
    void operator()(FT_Library library) const { FT_Done_FreeType(library); }
};
struct FaceDone {
    void operator()(FT_Face face) const { FT_Done_Face(face); }
};

// A character's glyph, loaded and rendered: a face whose tables are cut short fails here, not in ImGui.
std::string glyph_problem(FT_Face face, char32_t c) {
    const FT_UInt index = FT_Get_Char_Index(face, c);
    if (index == 0) return fmt::format("it has no glyph for U+{:04X}", static_cast<uint32_t>(c));
    if (FT_Load_Glyph(face, index, FT_LOAD_DEFAULT) != 0 ||
        FT_Render_Glyph(face->glyph, FT_RENDER_MODE_NORMAL) != 0)
        return fmt::format("its glyph for U+{:04X} cannot be drawn (the file is damaged or cut short)",
                           static_cast<uint32_t>(c));
    return {};
}

}  // namespace

std::string font_problem(std::span<const uint8_t> bytes) {
    if (bytes.empty()) return "it is empty";
    FT_Library raw_library = nullptr;
    if (FT_Init_FreeType(&raw_library) != 0) return "FreeType could not start";
    const std::unique_ptr<FT_LibraryRec_, LibraryDone> library(raw_library);
    FT_Face raw_face = nullptr;
    if (FT_New_Memory_Face(library.get(), bytes.data(), static_cast<FT_Long>(bytes.size()), 0, &raw_face) !=
        0)
        return "it is not a font FreeType can read";
    const std::unique_ptr<FT_FaceRec_, FaceDone> face(raw_face);
    if (!FT_IS_SCALABLE(face.get())) return "it is not a scalable (TrueType or OpenType) font";
    if (FT_Select_Charmap(face.get(), FT_ENCODING_UNICODE) != 0) return "it has no Unicode character map";
    if (FT_Set_Pixel_Sizes(face.get(), 0, 16) != 0) return "it cannot be set to a size";
    for (char32_t c = U' ' + 1; c < 0x7F; ++c)
        if (std::string problem = glyph_problem(face.get(), c); !problem.empty()) return problem;
    for (char32_t c : kExtraCharacters)
        if (std::string problem = glyph_problem(face.get(), c); !problem.empty()) return problem;
    return {};
}

std::string font_file_problem(const std::filesystem::path& path, std::string* bytes) {
    std::string text;
    try {
        text = read_input_file(path, kMaxFontFileBytes);
    } catch (const InputFileError& e) {
        return e.what();
    }
    std::string problem = font_problem(std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
    if (bytes) *bytes = std::move(text);
    return problem;
}

}  // namespace pinscope
