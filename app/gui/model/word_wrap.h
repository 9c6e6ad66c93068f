#pragma once
// Text broken into lines at spaces only. ImGui's own wrapping also breaks after '.' and ',', which on a
// projector split measured numbers inside themselves ("19.", "0k"; "3.", "00x"); a lesson's answer is
// made of such numbers.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace pinscope::gui {

// How wide a piece of text is drawn (ImGui::CalcTextSize's x, in the font in force).
using TextWidth = std::function<float(std::string_view)>;

// The lines of `text` no wider than `width`, broken at spaces and at '\n'. A word wider than `width` gets
// a line of its own (the caller sees it is too wide).
std::vector<std::string> wrap_at_spaces(std::string_view text, float width, const TextWidth& measure);

}  // namespace pinscope::gui
