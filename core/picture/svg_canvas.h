#pragma once
// A PictureCanvas that writes SVG text: one element per primitive, text kept as text (it stays
// selectable and sharp at any size), the pageable hatching as one <pattern> that boxes refer to.
#include <string>

#include "core/picture/picture_canvas.h"

namespace pinscope {

class SvgCanvas final : public PictureCanvas {
  public:
    SvgCanvas(int width, int height, Rgb background);

    void fill(const Box& box, Rgb colour, double alpha = 1) override;
    void outline(const Box& box, Rgb colour, double width) override;
    void hatch(const Box& box, Rgb colour) override;
    void text(double x, double baseline, std::string_view text, double size_px, Rgb colour,
              TextAnchor anchor = TextAnchor::start) override;

    // The whole document: <svg ...>, the pattern if a box used it, the elements, </svg>.
    std::string document() const;

  private:
    int width_, height_;
    Rgb background_;
    Rgb stripe_{};
    bool hatched_ = false;
    std::string body_;
};

// Text made safe for XML: &, <, >, " and ' escaped; control characters and bytes that are not UTF-8
// replaced.
std::string xml_escape(std::string_view text);

}  // namespace pinscope
