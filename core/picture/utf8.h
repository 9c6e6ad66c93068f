#pragma once
// UTF-8 as the pictures need it: lane and kernel names come from imported traces, so a byte sequence
// that is not UTF-8 becomes U+FFFD instead of breaking an SVG or a glyph lookup.
#include <string>
#include <string_view>

namespace pinscope {

constexpr char32_t kReplacementCharacter = 0xFFFD;

// The code point that starts at text[at], and moves `at` past it.
inline char32_t next_code_point(std::string_view text, size_t& at) {
    const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
    const unsigned char lead = byte(at++);
    if (lead < 0x80) return lead;
    int extra = -1;  // continuation bytes that follow; -1: not a lead byte
    if (lead >= 0xC2 && lead < 0xE0) extra = 1;
    if (lead >= 0xE0 && lead < 0xF0) extra = 2;
    if (lead >= 0xF0 && lead < 0xF5) extra = 3;
    if (extra < 0 || at + static_cast<size_t>(extra) > text.size()) return kReplacementCharacter;
    char32_t code = lead & (0x3F >> extra);
    for (int i = 0; i < extra; ++i) {
        if ((byte(at) & 0xC0) != 0x80) return kReplacementCharacter;
        code = (code << 6) | (byte(at++) & 0x3F);
    }
    const bool overlong = (extra == 2 && code < 0x800) || (extra == 3 && code < 0x10000);
    if (overlong || code > 0x10FFFF || (code >= 0xD800 && code < 0xE000)) return kReplacementCharacter;
    return code;
}

inline void append_utf8(std::string& out, char32_t code) {
    if (code < 0x80) {
        out += static_cast<char>(code);
    } else if (code < 0x800) {
        out += static_cast<char>(0xC0 | (code >> 6));
        out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
        out += static_cast<char>(0xE0 | (code >> 12));
        out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (code >> 18));
        out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (code & 0x3F));
    }
}

}  // namespace pinscope
