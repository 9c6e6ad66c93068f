#pragma once
// How `pinscope gui` runs: interactively until the window closes, or headless for a fixed number of
// frames (--frames) with a screenshot and frame-time statistics at the end.
#include <cstddef>
#include <filesystem>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/gui/model/ui_settings.h"
#include "core/config/presets.h"
#include "core/files/output_file.h"

namespace pinscope::gui {

struct GuiOptions {
    int frames = 0;  // 0: until the window is closed
    // --screenshot: readied before the window opens (core/files/output_file.h), written after the last frame.
    std::shared_ptr<OutputFile> screenshot;
    int width = 1600, height = 900;
    bool frame_stats = false;
    double view_seconds = 0;  // how much time the timeline shows at first; 0: about a dozen batches
    bool controls_collapsed = false;
    const Preset* preset = nullptr;   // --preset: shown as chosen, at its zoom
    size_t synthetic_spans = 0;       // > 0: view a synthetic trace of this many spans instead of a pipeline
    std::filesystem::path open_file;  // a capture to open at start (--open, `pinscope FILE`)
    std::filesystem::path compare_file;  // and one to compare it with (--compare)
    std::string open_range;              // --range FROM:TO: the part of --open's capture to read
    // --renderer: how a capture's spans are drawn. auto: on the GPU unless OpenGL is a software
    // rasterizer (llvmpipe), which would instance millions of spans on the very cores that build frames.
    enum class SpanRendering { automatic, gpu, draw_lists } span_rendering = SpanRendering::automatic;
    UiSettings ui;
    // For screenshots that show a hover or a selection (hidden options):
    struct Point {
        float x = 0, y = 0;
    };
    std::optional<Point> mouse;  // the pointer, fixed at this position
    double select_last = 0;      // select the last this many seconds of the view
    int click_frame = 0;         // press the left button at --mouse on this counted frame (0: never)
    std::string open_window;     // "record", "save" (the file dialog), "export", "shortcuts", "sweep" or
                                 // "advisor", open from the start (--show-window)
    std::string lesson;          // --lesson: open the Lessons panel on this lesson (its first run live)
    bool presentation = false;   // --presentation: full screen, large type, the lesson beside the timeline
    int lesson_page = 0;         // the lesson's page to show at first (screenshots)
    double run_sweep = 0;        // > 0: the Sweep window runs its first grid at once, this many seconds each
    std::vector<std::string>
        preview_edits;  // --preview-edit KNOB=VALUE: the Controls' preview, holding these
};

}  // namespace pinscope::gui
