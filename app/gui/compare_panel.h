#pragma once
// Compare: in place of the Controls while two captures are stacked, what differs between them (their
// knobs), their metrics side by side with each difference stated, and the batch they are aligned at.
#include "app/gui/model/app_state.h"
#include "app/gui/model/layout.h"
#include "app/gui/model/span_palette.h"

namespace pinscope::gui {

void draw_compare_panel(AppState& state, Theme theme, const Rect& rect);

}  // namespace pinscope::gui
