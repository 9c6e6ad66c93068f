#include "app/gui/timeline_lane_spans.h"

#include <algorithm>

#include <fmt/format.h>

#include "app/gui/span_renderer.h"
#include "app/gui/ui_style.h"
#include "core/units/units.h"

namespace pinscope::gui {
namespace {

constexpr float kHoverSlackPx = 3.f;
constexpr float kMinOutlinedPx = 4.f;  // narrower, an outline is all one would see of a span

bool is_copy(SpanKind kind) {
    return kind == SpanKind::h2d || kind == SpanKind::d2h;
}

// `text` cut to at most `bytes` bytes, ending in "..." when cut, never inside a UTF-8 character.
std::string elided(std::string_view text, size_t bytes) {
    if (text.size() <= bytes) return std::string(text);
    if (bytes < 4) return {};
    size_t keep = bytes - 3;
    while (keep > 0 && (static_cast<unsigned char>(text[keep]) & 0xC0) == 0x80) --keep;
    return std::string(text.substr(0, keep)) + "...";
}

// A label inside a box when it fits: the kind and batch for a span, then its name (such as the file a
// worker read), elided to fit, or else its bytes; the count for a fold.
std::string box_label(const LaneDrawItem& item, const Span& span, std::string_view name, float width,
                      float char_width) {
    if (item.folded()) return fmt::format("{} \xC2\xB7 {:.0f}%", item.count, 100 * item.occupancy);
    std::string text = std::string(span_kind_name(span.kind));
    if (span.batch != kNoBatch) text += fmt::format(" #{}", span.batch);
    const float room = width / char_width - static_cast<float>(text.size()) - 6;  // " · " (4 bytes), a margin
    if (!name.empty()) {
        if (room >= 8) text += " \xC2\xB7 " + elided(name, static_cast<size_t>(room));
        return text;
    }
    if (span.bytes && static_cast<float>(text.size() + 10) * char_width < width)
        text += fmt::format(" {}", format_bytes(double(span.bytes)));
    return text;
}

}  // namespace

void draw_hatch(ImDrawList* draw, ImVec2 a, ImVec2 b, ImU32 colour, float spacing) {
    const float h = b.y - a.y;
    if (h <= 0 || b.x <= a.x) return;
    // Lines from (k, b.y) to (k + h, a.y); each is clipped to [a.x, b.x] along its own parameter.
    for (float k = a.x - h; k < b.x; k += spacing) {
        const float t0 = std::max(0.f, (a.x - k) / h), t1 = std::min(1.f, (b.x - k) / h);
        if (t1 <= t0) continue;
        draw->AddLine(ImVec2(k + t0 * h, b.y - t0 * h), ImVec2(k + t1 * h, b.y - t1 * h), colour, 1.5f);
    }
}

void SpanLane::preprocess(const TimelineFrame& frame) {
    static const LaneSpans kNone;
    mapping_ = frame.mapping_of(other_);
    const LaneSpans* lane = frame.store_of(other_).lane(lane_);
    fold_lane(lane ? *lane : kNone, mapping_, items_);
    spans_ = lane ? lane->all() : std::span<const Span>{};
}

void SpanLane::draw(TimelineFrame& frame, float top) {
    label(frame, top);
    frame.draw->PushClipRect(
        ImVec2(frame.canvas_left, top),
        ImVec2(frame.canvas_left + static_cast<float>(frame.mapping.width_px), top + frame.row_height), true);
    boxes(frame, top);
    frame.draw->PopClipRect();
}

// The lane's name and, in a selected range, how busy it was there.
void SpanLane::label(const TimelineFrame& frame, float top) const {
    const LaneInfo* info = frame.store_of(other_).lane_info(lane_);
    std::string text = info ? info->name : "?";
    if (frame.busy && !other_)
        if (auto b = frame.busy->find(lane_); b != frame.busy->end())
            text += fmt::format("  {:.0f}%", b->second * 100);
    draw_lane_label(frame, top + (frame.row_height - ImGui::GetFontSize()) * 0.5f,
                    ImGui::GetColorU32(ImGuiCol_Text), text);
}

void SpanLane::boxes(TimelineFrame& frame, float top) {
    const SpanPalette& palette = gui::palette(frame.theme);
    const std::span<const Span> spans = spans_;
    const float y0 = top + 1, y1 = top + frame.row_height - 1;
    const float char_width = ImGui::GetFontSize() * 0.55f;
    const ImU32 stripe = to_imu32(palette.pageable_stripe);
    const ImU32 text = IM_COL32(0, 0, 0, 255);
    const bool mouse_in_row =
        frame.mouse_over_canvas && frame.mouse.y >= top && frame.mouse.y < top + frame.row_height;

    // On the GPU the boxes are drawn from the spans themselves; the folds below still give the labels
    // and what the mouse is over.
    if (frame.gpu)
        if (const LaneSpans* lane = frame.store_of(other_).lane(lane_))
            frame.gpu->draw_lane(frame.draw, *lane, mapping_, ImVec2(frame.canvas_left, y0),
                                 ImVec2(frame.canvas_left + static_cast<float>(frame.mapping.width_px), y1),
                                 palette);

    float nearest = kHoverSlackPx + 1;
    for (const LaneDrawItem& item : items_) {
        float x0 = frame.canvas_left + frame.mapping.clamp_x(item.x0);
        float x1 = frame.canvas_left + frame.mapping.clamp_x(item.x1);
        x1 = std::max(x1, x0 + 1.f);  // a span narrower than a pixel still shows
        const Rgb colour = palette.of(item.kind);
        // A fold is drawn as full as its spans kept the lane: a faint box for its extent, and from its
        // foot a bar as tall as its occupancy. A lane busy 30% of the time never looks solid.
        const float fill_top =
            item.folded() ? y1 - std::max(2.f, static_cast<float>(item.occupancy) * (y1 - y0)) : y0;
        const ImVec2 a(x0, y0), b(x1, y1), filled(x0, fill_top);
        if (!frame.gpu) {
            if (item.folded()) frame.draw->AddRectFilled(a, b, to_imu32(colour, 70));
            frame.draw->AddRectFilled(filled, b, to_imu32(colour));
        }
        if (item.memory == HostMemory::pageable && is_copy(item.kind)) {
            if (!frame.gpu) draw_hatch(frame.draw, filled, b, stripe, 6.f);
            // A span wide enough to show its hatch is outlined too, on either path. A fold's outline, or
            // a 1 px copy's, would paint a lane of tiny copies solid red (a D2H lane busy 0.1% looked
            // full), so those show as what they cover and no more.
            if (!item.folded() && x1 - x0 >= kMinOutlinedPx) frame.draw->AddRect(a, b, stripe, 0.f, 0, 1.5f);
        } else if (item.folded() && !frame.gpu) {
            frame.draw->AddRect(a, b, to_imu32(colour));  // the fold's extent, in its kind's colour
        }
        const Span& span = spans[item.first];
        // Labels start where the box becomes visible, so a span that began before the view keeps its name.
        const float text_x = std::max(x0, frame.canvas_left);
        if (x1 - text_x > char_width * 3) {
            const std::string_view name = span.name != kNoName ? frame.store_of(other_).name(span.name) : "";
            const std::string label = box_label(item, span, name, x1 - text_x, char_width);
            if (static_cast<float>(label.size()) * char_width + 6 < x1 - text_x) {
                const float y = top + (frame.row_height - ImGui::GetFontSize()) * 0.5f;
                frame.draw->AddText(ImVec2(text_x + 3, y), text, label.c_str());
            }
        }
        // Hover: the box under the mouse, else the nearest within a few pixels (spans of 1 px are
        // otherwise impossible to point at).
        if (mouse_in_row) {
            const float distance = frame.mouse.x < x0    ? x0 - frame.mouse.x
                                   : frame.mouse.x >= x1 ? frame.mouse.x - x1 + 1
                                                         : 0;
            if (distance <= kHoverSlackPx && distance < nearest) {
                nearest = distance;
                HoveredSpan hovered{lane_, span, item.count, span.start, span.end, other_};
                if (item.folded()) hovered.fold_end = mapping_.time_at(item.x1);
                frame.hovered = hovered;
            }
        }
    }
}

}  // namespace pinscope::gui
