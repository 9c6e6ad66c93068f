#include "core/picture/picture_layout.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace pinscope {
namespace {

constexpr const char* kEllipsis = "\xE2\x80\xA6";

// The smallest 1, 2 or 5 times a power of ten that is at least `at_least`.
TimeNs nice_step(double at_least) {
    TimeNs power = 1;
    while (static_cast<double>(power) * 10 <= at_least && power < kNsPerS * 1000) power *= 10;
    for (TimeNs m : {1, 2, 5})
        if (static_cast<double>(power * m) >= at_least) return power * m;
    return power * 10;
}

struct TimeUnit {
    TimeNs ns;
    const char* name;
};

// The unit the ruler counts in: the largest that the view is at least one of.
TimeUnit ruler_unit(TimeNs view_length) {
    constexpr std::array<TimeUnit, 4> kUnits = {
        {{kNsPerS, "s"}, {kNsPerMs, "ms"}, {kNsPerUs, "\xC2\xB5s"}, {1, "ns"}}};
    for (const TimeUnit& unit : kUnits)
        if (view_length >= unit.ns) return unit;
    return kUnits.back();
}

std::string tick_label(TimeNs offset, TimeNs step, TimeUnit unit) {
    if (offset == 0) return fmt::format("0 {}", unit.name);
    const double per_unit = static_cast<double>(step) / static_cast<double>(unit.ns);
    const int decimals = per_unit >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(per_unit) - 1e-9));
    return fmt::format("{:.{}f} {}", static_cast<double>(offset) / static_cast<double>(unit.ns), decimals,
                       unit.name);
}

// Ticks a step apart from the view's start, labelled relative to it; the step grows until every label
// fits before the next tick.
std::vector<RulerTick> ruler_ticks(const TimeMapping& m, const PictureFont* font, double font_px,
                                   double right_edge) {
    const TimeUnit unit = ruler_unit(m.view.length());
    TimeNs step = nice_step(static_cast<double>(m.ns_of_px(font_px * 5)));
    std::vector<RulerTick> ticks;
    for (int attempt = 0; attempt < 8; ++attempt, step = nice_step(static_cast<double>(step) * 1.5)) {
        ticks.clear();
        bool crowded = false;
        for (TimeNs offset = 0; offset <= m.view.length(); offset += step) {
            RulerTick tick{std::round(m.x_of(m.view.start + offset)), tick_label(offset, step, unit)};
            const double width = text_width(font, tick.label, font_px);
            crowded = crowded || width + font_px > static_cast<double>(step) * m.px_per_ns();
            if (tick.x + font_px * 0.3 + width > right_edge) tick.label.clear();
            ticks.push_back(std::move(tick));
        }
        if (!crowded) break;
    }
    return ticks;
}

// Lanes in the order the timeline draws them: the host's, then the device's, each by sort_key.
std::vector<const LaneInfo*> ordered_lanes(const TraceStore& store) {
    std::vector<const LaneInfo*> lanes;
    for (const LaneInfo& lane : store.lanes()) lanes.push_back(&lane);
    std::stable_sort(lanes.begin(), lanes.end(), [](const LaneInfo* a, const LaneInfo* b) {
        if (a->group != b->group) return a->group == LaneGroup::host;
        return a->sort_key < b->sort_key;
    });
    return lanes;
}

// What the legend explains: the kinds whose colours the boxes show, then the hatching and the folds if
// any box has them. A picture of three lanes does not list eight kinds.
std::vector<LegendEntry> legend_entries(const std::vector<PictureRow>& rows,
                                        const CategoryTable& categories) {
    std::array<bool, kMaxSpanKinds> shown{};
    bool pageable = false, folded = false;
    SpanKind pageable_kind = SpanKind::h2d, folded_kind = SpanKind::h2d;
    for (const PictureRow& row : rows)
        for (const LaneBox& box : row.boxes) {
            shown[static_cast<int>(box.kind)] = true;
            if (box.memory == HostMemory::pageable && is_copy(box.kind) && !pageable) {
                pageable = true;
                pageable_kind = box.kind;
            }
            if (box.folded() && !folded) {
                folded = true;
                folded_kind = box.kind;
            }
        }
    std::vector<LegendEntry> entries;
    const auto add = [&](std::string name, SpanKind colour, LegendLook look) {
        LegendEntry& e = entries.emplace_back();
        e.name = std::move(name);
        e.colour = colour;
        e.look = look;
    };
    for (int k = 0; k < kMaxSpanKinds; ++k)
        if (shown[k]) add(std::string(categories.name(SpanKind(k))), SpanKind(k), LegendLook::plain);
    if (pageable) add("from pageable memory", pageable_kind, LegendLook::hatched);
    if (folded) add("spans too short to draw, filled as busy", folded_kind, LegendLook::folded);
    return entries;
}

// Places the entries left to right from (left, top), wrapping before one that would cross `right`;
// returns the bottom of the last line.
double place_legend(std::vector<LegendEntry>& entries, const PictureFont* font, double font_px, double left,
                    double right, double top) {
    const double line = std::round(font_px * 1.7), swatch = std::round(font_px * 1.2);
    const double gap = std::round(font_px * 0.4), spacing = std::round(font_px * 1.4);
    double x = left, y = top;
    for (LegendEntry& e : entries) {
        const double width = swatch + gap + text_width(font, e.name, font_px);
        if (x > left && x + width > right) {
            x = left;
            y += line;
        }
        const double swatch_top = y + std::round((line - font_px) / 2);
        e.swatch = {x, swatch_top, x + swatch, swatch_top + std::round(font_px)};
        e.text_x = x + swatch + gap;
        e.baseline = swatch_top + std::round(font_px * 0.82);
        x += width + spacing;
    }
    return entries.empty() ? top : y + line;
}

}  // namespace

Box PictureLayout::lanes() const {
    const double top = rows.empty() ? ruler.y1 : rows.front().top;
    const double bottom = rows.empty() ? ruler.y1 : rows.back().bottom;
    return {mapping.left, top, mapping.right(), bottom};
}

Interval picture_view(const TraceStore& store, const PictureOptions& options) {
    if (options.view == Interval{0, 0}) {
        Interval whole{store.first_time(), store.last_time()};
        if (whole.length() <= 0) whole.end = whole.start + kNsPerMs;  // nothing recorded: an empty ruler
        return whole;
    }
    if (options.view.length() <= 0)
        throw std::invalid_argument(fmt::format("the picture's time range [{}, {}] ns is empty",
                                                options.view.start, options.view.end));
    return options.view;
}

std::string fit_text(const PictureFont* font, const std::string& text, double size_px, double width) {
    if (text_width(font, text, size_px) <= width) return text;
    std::string cut = text;
    while (!cut.empty()) {
        do {  // drop whole code points: never leave half a UTF-8 sequence
            cut.pop_back();
        } while (!cut.empty() && (static_cast<unsigned char>(cut.back()) & 0xC0) == 0x80);
        if (!cut.empty()) cut.pop_back();
        const std::string shortened = cut + kEllipsis;
        if (text_width(font, shortened, size_px) <= width) return shortened;
    }
    return "";
}

PictureLayout layout_picture(const TraceStore& store, const PictureOptions& options,
                             const PictureFont* font) {
    PictureLayout l;
    l.width = options.width;
    l.height = options.height;
    const double w = options.width, h = options.height;
    l.font_px = std::clamp(std::round(std::min(w, h * 16 / 9) / 100), 9.0, 32.0);
    const double pad = std::round(l.font_px * 0.75);
    double y = pad * 0.5;

    if (!options.title.empty()) {
        l.title_px = std::round(l.font_px * 1.2);
        l.title = fit_text(font, options.title, l.title_px, w - 2 * pad);
        l.title_baseline = y + std::round(l.title_px * 1.1);
        y = l.title_baseline + std::round(l.title_px * 0.5);
    }

    // The label column is as wide as the longest lane name, up to 30% of the picture.
    const std::vector<const LaneInfo*> lanes = ordered_lanes(store);
    double names = l.font_px * 4;
    for (const LaneInfo* lane : lanes) names = std::max(names, text_width(font, lane->name, l.font_px));
    const double column = std::min(std::round(names + 2 * pad), std::round(w * 0.3));
    l.label_x = pad;
    l.mapping = {picture_view(store, options), column, std::max(1.0, w - pad - column)};

    l.ruler = {column, y, l.mapping.right(), y + std::round(l.font_px * 1.8)};
    l.ticks = ruler_ticks(l.mapping, font, l.font_px, w - pad / 2);

    for (const LaneInfo* lane : lanes) {
        PictureRow& row = l.rows.emplace_back();
        row.lane = lane->id;
        row.label = fit_text(font, lane->name, l.font_px, column - 1.5 * pad);
        if (const LaneSpans* spans = store.lane(lane->id)) row.boxes = lane_boxes(*spans, l.mapping);
    }
    l.legend = legend_entries(l.rows, store.categories());
    std::vector<LegendEntry> measured = l.legend;
    const double legend_height = place_legend(measured, font, l.font_px, pad, w - pad, 0);

    // Rows share what the ruler and the legend leave, up to about five lines of text each.
    const bool split = !lanes.empty() && lanes.front()->group != lanes.back()->group;  // host and device
    const double gap = split ? std::round(l.font_px * 0.8) : 0;
    const double top = l.ruler.y1, bottom = h - pad - legend_height - pad;
    const double rows = static_cast<double>(std::max<size_t>(1, l.rows.size()));
    const double row_h =
        std::clamp(std::floor((bottom - top - gap) / rows), 1.0, std::round(l.font_px * 5.5));
    l.label_px = row_h >= 9 ? std::min(l.font_px, std::floor(row_h * 0.8)) : 0;
    y = top;
    for (size_t i = 0; i < l.rows.size(); ++i) {
        if (split && i > 0 && lanes[i]->group != lanes[i - 1]->group) {
            l.separator_y = y + std::round(gap / 2);
            y += gap;
        }
        l.rows[i].top = y;
        l.rows[i].bottom = y + row_h;
        y += row_h;
    }
    place_legend(l.legend, font, l.font_px, pad, w - pad, y + pad);
    return l;
}

}  // namespace pinscope
