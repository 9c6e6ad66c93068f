#pragma once
// The lesson files as the build embedded them (generated from embedded_lessons.cpp.in).
#include <span>

#include "core/config/embedded_presets.h"  // EmbeddedFile

namespace pinscope {

std::span<const EmbeddedFile> embedded_lessons();

}  // namespace pinscope
