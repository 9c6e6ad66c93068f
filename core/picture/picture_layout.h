#pragma once
// Where everything of a timeline picture goes, decided once for the SVG and the PNG alike: the title
// line, the time ruler, a row per lane with its name in a label column, the boxes of each lane, and the
// legend under the lanes. Sizes follow the picture's size (a font of about 1/100 of its width), so a
// 1600x900 picture and a 3840x2160 one look alike on a slide.
#include <string>
#include <vector>

#include "core/picture/lane_boxes.h"
#include "core/picture/picture_canvas.h"
#include "core/picture/picture_font.h"
#include "core/picture/timeline_picture.h"
#include "core/trace/trace_store.h"

namespace pinscope {

struct PictureRow {
    LaneId lane = kNoLane;
    std::string label;           // the lane's name, shortened with "…" to fit the label column
    double top = 0, bottom = 0;  // the row; its boxes sit a little inside
    std::vector<LaneBox> boxes;
};

struct RulerTick {
    double x = 0;
    std::string label;  // "2 ms"; empty where it would not fit
};

enum class LegendLook { plain, hatched, folded };

struct LegendEntry {
    std::string name;
    SpanKind colour = SpanKind::fetch;
    LegendLook look = LegendLook::plain;
    Box swatch;
    double text_x = 0, baseline = 0;
};

struct PictureLayout {
    int width = 0, height = 0;
    double font_px = 0;  // lane names, the ruler, the legend
    double title_px = 0, title_baseline = 0;
    std::string title;  // shortened to fit; empty: none
    TimeMapping mapping;
    double label_x = 0;   // where lane names start
    double label_px = 0;  // the size of lane names; 0 when rows are too thin to carry them
    Box ruler;
    std::vector<RulerTick> ticks;
    std::vector<PictureRow> rows;  // host lanes, then device lanes, each by sort_key
    double separator_y = -1;       // between the host and the device lanes; -1: none
    std::vector<LegendEntry> legend;

    // The part of the picture the lanes take, label column excluded.
    Box lanes() const;
};

// The view to draw: options.view, or the whole trace when it is {0, 0}. Throws std::invalid_argument
// for a view that ends before it starts.
Interval picture_view(const TraceStore& store, const PictureOptions& options);

PictureLayout layout_picture(const TraceStore& store, const PictureOptions& options, const PictureFont* font);

// `text`, shortened with "…" at the end until it is at most `width` pixels wide.
std::string fit_text(const PictureFont* font, const std::string& text, double size_px, double width);

}  // namespace pinscope
