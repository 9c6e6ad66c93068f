#pragma once
// Whether a font file can draw the app's text, asked of FreeType, which is made to read untrusted fonts,
// before Dear ImGui's atlas builder ever sees the file. `gui --font` on an empty file, a cut-short TTF
// or /etc/passwd then falls back to the built-in font with a warning instead of an assertion or a crash.
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

namespace pinscope {

// No font the app would use is bigger (a CJK font is about 20 MiB).
constexpr size_t kMaxFontFileBytes = 64u << 20;

// What is wrong with these bytes as the app's font, or empty when FreeType reads them as a face that has
// a glyph for every character the app draws (printable ASCII and « » ·) and can render each.
std::string font_problem(std::span<const uint8_t> bytes);

// The same for a file, read whole (at most kMaxFontFileBytes). `bytes` receives what was read, so the
// caller builds its atlas from exactly the bytes that were checked.
std::string font_file_problem(const std::filesystem::path& path, std::string* bytes = nullptr);

}  // namespace pinscope
