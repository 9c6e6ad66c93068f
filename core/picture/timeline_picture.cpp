#include "core/picture/timeline_picture.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/picture/picture_layout.h"
#include "core/picture/raster_canvas.h"
#include "core/picture/svg_canvas.h"

namespace pinscope {
namespace {

// The colours around the spans: text, the ruler's grid, every other row's tint.
struct Chrome {
    Rgb text, faint_text, grid, row_tint, separator;
};

constexpr Chrome kLightChrome{{34, 34, 40}, {96, 98, 108}, {226, 228, 234}, {245, 246, 249}, {160, 162, 170}};
constexpr Chrome kDarkChrome{{226, 227, 232}, {160, 162, 172}, {50, 52, 60}, {31, 32, 38}, {100, 102, 112}};

struct Look {
    const SpanPalette& palette;
    const Chrome& chrome;
};

Look look_of(const PictureOptions& options) {
    return options.dark ? Look{kDarkPalette, kDarkChrome} : Look{kLightPalette, kLightChrome};
}

// Black or white, whichever reads better on `colour`.
Rgb text_on(Rgb colour) {
    const double luma = 0.299 * colour.r + 0.587 * colour.g + 0.114 * colour.b;
    return luma > 140 ? Rgb{0, 0, 0} : Rgb{255, 255, 255};
}

// A span's name inside its box, as much of it as fits: its kernel's name or its kind and its batch,
// else the batch alone (the colour already says the kind), else the name alone.
std::string box_label(const TraceStore& store, const Span& span, const PictureFont* font, double size_px,
                      double room) {
    const std::string name(span.name != kNoName ? store.name(span.name) : span_kind_name(span.kind));
    std::vector<std::string> choices;
    if (span.batch != kNoBatch) {
        choices.push_back(fmt::format("{} #{}", name, span.batch));
        choices.push_back(fmt::format("#{}", span.batch));
    }
    choices.push_back(name);
    for (const std::string& text : choices)
        if (text_width(font, text, size_px) <= room) return text;
    return room >= size_px * 4 ? fit_text(font, name, size_px, room) : "";  // a long kernel name, cut
}

// Draws a box, or a fold: a faint box over the fold's extent and, from its foot, a bar as tall as the
// fold's occupancy. A span's box leaves its last pixel column empty when it is wide enough, so two
// spans back to back read as two. Copies from pageable memory get red stripes and a red frame around
// what is filled (a fold's bar, not its faint extent: a fold 5% busy stays a low bar); a box too small
// for stripes keeps its kind's colour between a red cap and foot.
void draw_box(PictureCanvas& canvas, const LaneBox& box, double y0, double y1, const SpanPalette& palette,
              double frame) {
    const Rgb colour = palette.of(box.kind);
    Box filled{box.x0, y0, box.x1, y1};
    if (box.folded()) {
        canvas.fill(filled, colour, 0.25);
        filled.y0 = y1 - std::max(1.0, std::round(box.occupancy * (y1 - y0)));
    } else if (filled.width() >= 4) {
        filled.x1 -= 1;
    }
    canvas.fill(filled, colour);
    if (box.memory != HostMemory::pageable || !is_copy(box.kind)) return;
    if (filled.width() >= 4 * frame && filled.height() >= 4 * frame) {
        canvas.hatch(filled, palette.pageable_stripe);
        canvas.outline(filled, palette.pageable_stripe, frame);
    } else {
        const double cap = std::max(1.0, std::min(std::floor(filled.height() / 4), 2 * frame));
        canvas.fill({filled.x0, filled.y0, filled.x1, filled.y0 + cap}, palette.pageable_stripe);
        canvas.fill({filled.x0, filled.y1 - cap, filled.x1, filled.y1}, palette.pageable_stripe);
    }
}

void draw_row(PictureCanvas& canvas, const TraceStore& store, const PictureLayout& l, const PictureRow& row,
              const Look& look, const PictureFont* font) {
    const double height = row.bottom - row.top;
    const double inset = height >= 8 ? std::round(height * 0.12) : 0;
    const double y0 = row.top + inset, y1 = row.bottom - inset;
    const double frame = std::max(1.0, std::round(l.font_px / 10));
    const double label_px = std::round(l.font_px * 0.85);
    const bool labels = y1 - y0 >= label_px * 1.3;
    const std::span<const Span> spans = store.spans(row.lane);
    for (const LaneBox& box : row.boxes) {
        draw_box(canvas, box, y0, y1, look.palette, frame);
        if (!labels || box.folded() || box.x1 - box.x0 < label_px * 3) continue;
        const double pad = std::round(label_px * 0.35);
        const std::string text =
            box_label(store, spans[box.first], font, label_px, box.x1 - box.x0 - 2 * pad);
        const Rgb colour = look.palette.of(box.kind);
        if (!text.empty())
            canvas.text(box.x0 + pad, std::round((y0 + y1) / 2 + label_px * 0.36), text, label_px,
                        text_on(colour));
    }
    if (l.label_px > 0)
        canvas.text(l.label_x, std::round((row.top + row.bottom) / 2 + l.label_px * 0.36), row.label,
                    l.label_px, look.chrome.text);
}

void draw_ruler(PictureCanvas& canvas, const PictureLayout& l, const Look& look) {
    const Box lanes = l.lanes();
    const double tick = std::round(l.font_px * 0.4);
    canvas.fill({l.ruler.x0, l.ruler.y1 - 1, l.ruler.x1, l.ruler.y1}, look.chrome.separator);
    for (const RulerTick& t : l.ticks) {
        canvas.fill({t.x, lanes.y0, t.x + 1, lanes.y1}, look.chrome.grid);
        canvas.fill({t.x, l.ruler.y1 - tick, t.x + 1, l.ruler.y1}, look.chrome.separator);
        canvas.text(t.x + std::round(l.font_px * 0.3), l.ruler.y1 - std::round(l.font_px * 0.55), t.label,
                    l.font_px, look.chrome.faint_text);
    }
}

void draw_legend(PictureCanvas& canvas, const PictureLayout& l, const Look& look) {
    const double frame = std::max(1.0, std::round(l.font_px / 10));
    for (const LegendEntry& e : l.legend) {
        LaneBox box{e.swatch.x0, e.swatch.x1, 0, 1, e.colour, HostMemory::none};
        if (e.look == LegendLook::hatched) box.memory = HostMemory::pageable;
        if (e.look == LegendLook::folded) {
            box.count = 2;
            box.occupancy = 0.4;
        }
        draw_box(canvas, box, e.swatch.y0, e.swatch.y1, look.palette, frame);
        canvas.text(e.text_x, e.baseline, e.name, l.font_px, look.chrome.text);
    }
}

// Everything, back to front: row tints and the ruler's grid, the boxes, the names, the legend.
void draw_picture(PictureCanvas& canvas, const TraceStore& store, const PictureOptions& options,
                  const PictureFont* font) {
    const PictureLayout l = layout_picture(store, options, font);
    const Look look = look_of(options);
    for (size_t i = 1; i < l.rows.size(); i += 2)
        canvas.fill({0, l.rows[i].top, double(l.width), l.rows[i].bottom}, look.chrome.row_tint);
    if (l.separator_y >= 0)
        canvas.fill({0, l.separator_y, double(l.width), l.separator_y + 1}, look.chrome.separator);
    draw_ruler(canvas, l, look);
    for (const PictureRow& row : l.rows) draw_row(canvas, store, l, row, look, font);
    if (!l.title.empty()) canvas.text(l.label_x, l.title_baseline, l.title, l.title_px, look.chrome.text);
    draw_legend(canvas, l, look);
}

void check_size(const PictureOptions& options) {
    constexpr int kLargest = 16384;
    if (options.width < 16 || options.height < 16 || options.width > kLargest || options.height > kLargest)
        throw std::invalid_argument(
            fmt::format("a picture of {}x{} pixels: give a width and a height from 16 to {}", options.width,
                        options.height, kLargest));
}

}  // namespace

std::string timeline_svg(const TraceStore& store, const PictureOptions& options) {
    check_size(options);
    SvgCanvas canvas(options.width, options.height, look_of(options).palette.background);
    // The SVG is laid out with the PNG's font where there is one, so its text takes the same room.
    draw_picture(canvas, store, options, PictureFont::system());
    return canvas.document();
}

std::vector<uint8_t> timeline_png(const TraceStore& store, const PictureOptions& options,
                                  std::string* warning) {
    check_size(options);
    const PictureFont* font = PictureFont::system();
    if (!font && warning)
        *warning =
            fmt::format("no font found ({} or Inter): the picture has no text; install fonts-dejavu-core",
                        PictureFont::candidates().front().string());
    RasterCanvas canvas(options.width, options.height, look_of(options).palette.background, font);
    draw_picture(canvas, store, options, font);
    return canvas.png();
}

std::optional<PictureFormat> picture_format_of(const std::filesystem::path& path) {
    if (path.extension() == ".svg") return PictureFormat::svg;
    if (path.extension() == ".png") return PictureFormat::png;
    return std::nullopt;
}

void save_timeline_picture(OutputFile& file, PictureFormat format, const TraceStore& store,
                           const PictureOptions& options, std::string* warning) {
    if (format == PictureFormat::svg) {
        file.write(timeline_svg(store, options));
    } else {
        const std::vector<uint8_t> png = timeline_png(store, options, warning);
        file.write(std::string_view(reinterpret_cast<const char*>(png.data()), png.size()));
    }
}

void save_timeline_picture(const std::filesystem::path& path, const TraceStore& store,
                           const PictureOptions& options, std::string* warning) {
    const std::optional<PictureFormat> format = picture_format_of(path);
    if (!format)
        throw std::invalid_argument(
            fmt::format("{}: a picture is written as .svg or .png, by its file name", path.string()));
    OutputFile file(path, "the picture");
    save_timeline_picture(file, *format, store, options, warning);
}

}  // namespace pinscope
