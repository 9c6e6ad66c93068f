#pragma once
// The GLSL of shaders/, built into the binary (CMake writes shader_sources.cpp from the files), so the
// app finds its shaders wherever it is run from.
#include <string_view>

namespace pinscope::gui {

// The text of shaders/NAME (e.g. "timeline_spans.vert"); empty for a name that is not there.
std::string_view shader_source(std::string_view name);

}  // namespace pinscope::gui
