#pragma once
// The Controls' preview: a box that holds edits back from the running pipeline, what they change (knob by
// knob), what the predictor says the running config and the edited one will measure, and Apply / Discard.
#include "app/gui/model/app_state.h"
#include "app/gui/model/span_palette.h"

namespace pinscope::gui {

void draw_preview(AppState& state, Theme theme);

}  // namespace pinscope::gui
