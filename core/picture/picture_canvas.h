#pragma once
// What a picture of a timeline is drawn with: a handful of primitives that an SVG writer and a software
// rasterizer both implement. The timeline code decides every position (snapped to whole pixels where
// it matters), so the SVG and the PNG of one view show the same boxes.
#include <string_view>

#include "core/picture/span_palette.h"

namespace pinscope {

// [x0, x1) x [y0, y1) in pixels from the top-left corner.
struct Box {
    double x0 = 0, y0 = 0, x1 = 0, y1 = 0;

    double width() const { return x1 - x0; }
    double height() const { return y1 - y0; }
};

enum class TextAnchor { start, middle, end };

class PictureCanvas {
  public:
    virtual ~PictureCanvas() = default;

    // `alpha` 1 is opaque; lower lets what is below show through.
    virtual void fill(const Box& box, Rgb colour, double alpha = 1) = 0;
    // A frame of `width` pixels drawn inside the box.
    virtual void outline(const Box& box, Rgb colour, double width) = 0;
    // Diagonal stripes over the box: what marks a copy from pageable memory.
    virtual void hatch(const Box& box, Rgb colour) = 0;
    // One line of UTF-8 text whose baseline is at `baseline`; `x` is where its anchor goes.
    virtual void text(double x, double baseline, std::string_view text, double size_px, Rgb colour,
                      TextAnchor anchor = TextAnchor::start) = 0;
};

}  // namespace pinscope
