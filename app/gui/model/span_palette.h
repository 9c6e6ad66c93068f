#pragma once
// The app's colour themes. The colours themselves live in core/picture/span_palette.h, which the
// exported pictures share; the app picks one of them by its Theme.
#include "core/picture/span_palette.h"
#include "core/trace/span.h"

namespace pinscope::gui {

using pinscope::kDarkPalette;
using pinscope::kHighContrastPalette;
using pinscope::Rgb;
using pinscope::SpanPalette;

enum class Theme { dark, high_contrast };

inline const SpanPalette& palette(Theme theme) {
    return theme == Theme::high_contrast ? kHighContrastPalette : kDarkPalette;
}

inline Rgb kind_colour(Theme theme, SpanKind kind) {
    return palette(theme).of(kind);
}

}  // namespace pinscope::gui
