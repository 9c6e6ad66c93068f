#include "core/picture/svg_canvas.h"

#include <fmt/format.h>

#include "core/picture/utf8.h"

namespace pinscope {
namespace {

constexpr const char* kFontFamily = "DejaVu Sans, Inter, sans-serif";
constexpr const char* kStripePattern = "pageable-stripes";

std::string hex(Rgb c) {
    return fmt::format("#{:02x}{:02x}{:02x}", c.r, c.g, c.b);
}

// Coordinates with at most two decimals and no trailing zeros: the file stays small and diffable.
std::string number(double v) {
    std::string text = fmt::format("{:.2f}", v);
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
    return text == "-0" ? "0" : text;
}

std::string rect(const Box& box) {
    return fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}")", number(box.x0), number(box.y0),
                       number(box.width()), number(box.height()));
}

}  // namespace

std::string xml_escape(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (size_t at = 0; at < text.size();) {
        const char32_t code = next_code_point(text, at);
        switch (code) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\'':
                out += "&apos;";
                break;
            default:
                append_utf8(out,
                            code < 0x20 || code == 0xFFFE || code == 0xFFFF ? kReplacementCharacter : code);
        }
    }
    return out;
}

SvgCanvas::SvgCanvas(int width, int height, Rgb background)
    : width_(width), height_(height), background_(background) {}

void SvgCanvas::fill(const Box& box, Rgb colour, double alpha) {
    if (box.width() <= 0 || box.height() <= 0) return;
    body_ += rect(box);
    body_ += fmt::format(R"( fill="{}")", hex(colour));
    if (alpha < 1) body_ += fmt::format(R"( fill-opacity="{}")", number(alpha));
    body_ += "/>\n";
}

void SvgCanvas::outline(const Box& box, Rgb colour, double width) {
    const Box inset{box.x0 + width / 2, box.y0 + width / 2, box.x1 - width / 2, box.y1 - width / 2};
    if (inset.width() < 0 || inset.height() < 0) return;
    body_ += rect(inset);
    body_ += fmt::format(R"( fill="none" stroke="{}" stroke-width="{}"/>)", hex(colour), number(width));
    body_ += "\n";
}

void SvgCanvas::hatch(const Box& box, Rgb colour) {
    if (box.width() <= 0 || box.height() <= 0) return;
    hatched_ = true;
    stripe_ = colour;  // the pictures use one stripe colour; the pattern takes the last one given
    body_ += rect(box);
    body_ += fmt::format(R"svg( fill="url(#{})"/>)svg", kStripePattern);
    body_ += "\n";
}

void SvgCanvas::text(double x, double baseline, std::string_view text, double size_px, Rgb colour,
                     TextAnchor anchor) {
    if (text.empty()) return;
    body_ += fmt::format(R"(<text x="{}" y="{}" font-size="{}" fill="{}")", number(x), number(baseline),
                         number(size_px), hex(colour));
    if (anchor == TextAnchor::middle) body_ += R"( text-anchor="middle")";
    if (anchor == TextAnchor::end) body_ += R"( text-anchor="end")";
    body_ += fmt::format(">{}</text>\n", xml_escape(text));
}

std::string SvgCanvas::document() const {
    std::string svg = fmt::format(
        R"(<svg xmlns="http://www.w3.org/2000/svg" width="{0}" height="{1}" viewBox="0 0 {0} {1}" )"
        R"(font-family="{2}">)"
        "\n",
        width_, height_, kFontFamily);
    if (hatched_)  // stripes 6 px apart, going up to the right like the app's
        svg += fmt::format(
            R"(<defs><pattern id="{}" width="6" height="6" patternUnits="userSpaceOnUse" )"
            R"svg(patternTransform="rotate(45)"><rect width="1.5" height="6" fill="{}"/></pattern></defs>)svg"
            "\n",
            kStripePattern, hex(stripe_));
    svg += rect({0, 0, double(width_), double(height_)});
    svg += fmt::format(R"( fill="{}"/>)", hex(background_));
    svg += "\n";
    svg += body_;
    svg += "</svg>\n";
    return svg;
}

}  // namespace pinscope
