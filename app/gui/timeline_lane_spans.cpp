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

// `text` cut to at most `bytes` bytes, ending in "..." when cut, never inside a UTF-8 character.
std::string elided(std::string_view text, size_t bytes) {
    if (text.size() <= bytes) return std::string(text);
    if (bytes < 4) return {};
    size_t keep = bytes - 3;
    while (keep > 0 && (static_cast<unsigned char>(text[keep]) & 0xC0) == 0x80) --keep;
    return std::string(text.substr(0, keep)) + "...";
}

// A label inside a box, as much of it as fits in `room` bytes: for pinscope's own kinds the kind and batch
// whole, then the span's name (such as the file a worker read) elided, or else its bytes; for an imported
// category the span's name alone, elided (its colour and the legend say the category); the count for a
// fold. Empty when not even that fits.
std::string box_label(const LaneDrawItem& item, const Span& span, std::string_view category,
                      std::string_view name, size_t room) {
    constexpr size_t kFewest = 6;  // "ab...": an elided name shorter says nothing
    std::string text;
    if (item.folded()) {
        text = fmt::format("{} \xC2\xB7 {:.0f}%", item.count, 100 * item.occupancy);
    } else if (!is_builtin(span.kind) && !name.empty()) {
        return room >= kFewest ? elided(name, room) : std::string();
    } else {
        text = category;
        if (span.batch != kNoBatch) text += fmt::format(" #{}", span.batch);
        const std::string_view separator = " \xC2\xB7 ";
        if (!name.empty() && text.size() + separator.size() + kFewest <= room)
            return text + std::string(separator) + elided(name, room - text.size() - separator.size());
        if (name.empty() && span.bytes) {
            const std::string bytes = fmt::format(" {}", format_bytes(double(span.bytes)));
            if (text.size() + bytes.size() <= room) text += bytes;
        }
    }
    return text.size() <= room ? text : std::string();
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

float SpanLane::height(const TimelineFrame& frame) const {
    const LaneSpans* lane = frame.store_of(other_).lane(lane_);
    return frame.row_height * static_cast<float>(lane ? level_count(*lane) : 1);
}

void SpanLane::preprocess(const TimelineFrame& frame) {
    mapping_ = frame.mapping_of(other_);
    const LaneSpans* lane = frame.store_of(other_).lane(lane_);
    if (!lane) {
        levels_.clear();
        return;
    }
    const std::span<const LaneSpans* const> levels = split_.of(*lane);
    levels_.resize(levels.size());
    for (size_t i = 0; i < levels.size(); ++i) {
        levels_[i].spans = levels[i];
        fold_lane(*levels[i], mapping_, levels_[i].items);
    }
}

size_t SpanLane::drawn_items() const {
    size_t items = 0;
    for (const Level& level : levels_) items += level.items.size();
    return items;
}

void SpanLane::kinds_in_view(std::vector<bool>& kinds, bool& pageable) const {
    for (const Level& level : levels_)
        for (const LaneDrawItem& item : level.items) {
            const size_t kind = static_cast<size_t>(item.kind);
            if (kind >= kinds.size()) kinds.resize(kind + 1);
            kinds[kind] = true;
            pageable = pageable || (item.memory == HostMemory::pageable && is_copy(item.kind));
        }
}

void SpanLane::draw(TimelineFrame& frame, float top) {
    label(frame, top);
    const float bottom = top + height(frame);
    frame.draw->PushClipRect(ImVec2(frame.canvas_left, top),
                             ImVec2(frame.canvas_left + static_cast<float>(frame.mapping.width_px), bottom),
                             true);
    for (size_t i = 0; i < levels_.size(); ++i)
        boxes(frame, levels_[i], top + frame.row_height * static_cast<float>(i));
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

void SpanLane::boxes(TimelineFrame& frame, const Level& level, float top) {
    const SpanPalette& palette = gui::palette(frame.theme);
    const std::span<const Span> spans = level.spans->all();
    const float y0 = top + 1, y1 = top + frame.row_height - 1;
    const float char_width = ImGui::GetFontSize() * 0.55f;
    const ImU32 stripe = to_imu32(palette.pageable_stripe);
    const ImU32 text = IM_COL32(0, 0, 0, 255);
    const bool mouse_in_row =
        frame.mouse_over_canvas && frame.mouse.y >= top && frame.mouse.y < top + frame.row_height;

    // On the GPU the boxes are drawn from the spans themselves; the folds below still give the labels
    // and what the mouse is over.
    if (frame.gpu)
        frame.gpu->draw_lane(frame.draw, *level.spans, mapping_, ImVec2(frame.canvas_left, y0),
                             ImVec2(frame.canvas_left + static_cast<float>(frame.mapping.width_px), y1),
                             palette);

    float nearest = kHoverSlackPx + 1;
    for (const LaneDrawItem& item : level.items) {
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
            const TraceStore& store = frame.store_of(other_);
            const std::string_view name = span.name != kNoName ? store.name(span.name) : "";
            const auto room = static_cast<size_t>(std::max(0.f, (x1 - text_x - 6) / char_width));
            const std::string label = box_label(item, span, store.category_name(span.kind), name, room);
            if (!label.empty()) {
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
