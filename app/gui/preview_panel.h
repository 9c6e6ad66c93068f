#pragma once
// The Controls' preview: a box that holds edits back from the running pipeline, what they change (knob by
// knob), what the predictor says the running config and the edited one will measure, and Apply / Discard.
#include "app/gui/model/app_state.h"
#include "app/gui/model/span_palette.h"
#include "core/config/knobs.h"

namespace pinscope::gui {

void draw_preview(AppState& state, Theme theme);

// Over a hovered slider, while the preview is on: the predicted samples/s across the knob's range, with
// the other knobs as in `base`, the value now marked and the best named.
void curve_tooltip(PredictionPreview& preview, const PipelineConfig& base, const Knob& knob);

}  // namespace pinscope::gui
