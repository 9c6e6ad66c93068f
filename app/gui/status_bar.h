#pragma once
// The status bar: which device runs and why (the GPU, or the simulated GPU when there is none), the
// run's state, and any error, in plain words and in red (e.g. a worker's exception, as PyTorch
// words it). Warnings from validation in yellow.
#include <string>

#include <imgui.h>

#include "app/gui/model/app_state.h"
#include "app/gui/model/layout.h"
#include "app/gui/model/span_palette.h"

namespace pinscope::gui {

struct StatusExtras {
    std::string font_note;  // which font, and why not DejaVu when it is missing
    bool font_fell_back = false;
    float fps = 0;
    std::string span_drawing;  // how the timeline's spans are drawn: GPU shaders or draw lists, and why
};

// Lines the status bar needs for this state (1 to 3): the window is sized from it.
int status_bar_lines(const AppState& state, const StatusExtras& extras);
void draw_status_bar(const AppState& state, const StatusExtras& extras, Theme theme, const Rect& rect,
                     float padding);

}  // namespace pinscope::gui
