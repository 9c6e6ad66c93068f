#pragma once
// The preset files as the build embedded them (generated from embedded_presets.cpp.in).
#include <span>

namespace pinscope {

struct EmbeddedFile {
    const char* name;
    const char* text;
};

std::span<const EmbeddedFile> embedded_presets();

}  // namespace pinscope
