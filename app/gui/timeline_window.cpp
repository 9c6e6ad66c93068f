#include "app/gui/timeline_window.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "app/gui/keys.h"
#include "app/gui/model/batch_trail.h"
#include "app/gui/model/lane_order.h"
#include "app/gui/model/trace_window.h"
#include "app/gui/model/units.h"
#include "app/gui/timeline_flows.h"
#include "app/gui/ui_style.h"

namespace pinscope::gui {
namespace {

constexpr double kWheelZoom = 0.8;  // per wheel notch
constexpr TimeNs kSummaryRefresh = 500 * kNsPerMs;

// Tick labels show as many decimals as the tick step needs, relative to the run's start.
std::string tick_label(TimeNs t, TimeNs step) {
    const int decimals =
        std::clamp(static_cast<int>(std::ceil(-std::log10(static_cast<double>(step) / 1e9))), 0, 6);
    return fmt::format("{:.{}f} s", static_cast<double>(t) / 1e9, decimals);
}

const char* group_title(LaneGroup group) {
    return group == LaneGroup::host ? "Host" : "Device";
}

}  // namespace

TimelineWindow::TimelineWindow() {
    for (CounterKind kind :
         {CounterKind::outstanding_batches, CounterKind::reorder_depth, CounterKind::pinned_bytes})
        counter_lanes_.emplace_back(kind);
}

SpanLane& TimelineWindow::span_lane(LaneId lane) {
    auto& slot = span_lanes_[lane];
    if (!slot) slot = std::make_unique<SpanLane>(lane);
    return *slot;
}

void TimelineWindow::fit(const TraceStore& store) {
    const TimeNs first = store.first_time(), last = latest_span_end(store);
    if (last > first) viewport_.show({first, last});
}

void TimelineWindow::shortcuts(const AppState& state) {
    const ImGuiIO& io = ImGui::GetIO();
    if (io.WantTextInput || io.KeyCtrl) return;
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Space), false)) viewport_.toggle_following();
    if (ImGui::IsKeyPressed(keys::kF, false)) fit(state.store());
    if (ImGui::IsKeyPressed(keys::kZ, false) && viewport_.selection()) viewport_.show(*viewport_.selection());
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false)) viewport_.clear_selection();
}

void TimelineWindow::draw(AppState& state, Theme theme, ImVec2 pos, ImVec2 size) {
    const TraceStore& store = state.store();
    if (!state.live() && !fitted_ && store.span_count() > 0) {  // a finished trace opens showing all of it
        fit(store);
        fitted_ = true;
    }
    viewport_.update(latest_span_end(store));
    refresh_summary(state);

    ImGui::SetNextWindowPos(pos);
    ImGui::SetNextWindowSize(size);
    ImGui::Begin("Timeline", nullptr,
                 ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                     ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
    toolbar(state, theme);
    legend(theme);
    summary_line(state, theme);
    const float label_width = ImGui::GetFontSize() * 10.f;
    const float canvas_width =
        std::max(ImGui::GetContentRegionAvail().x - label_width - ImGui::GetStyle().ScrollbarSize, 50.f);
    ruler(PixelMapping{viewport_.range(), canvas_width}, state.time_origin(), theme, label_width);
    lanes(state, theme, label_width);
    ImGui::End();
}

void TimelineWindow::toolbar(AppState& state, Theme theme) {
    if (viewport_.following()) {
        if (ImGui::Button("Pause (space)")) viewport_.set_following(false);
    } else if (ImGui::Button("Follow live (space)")) {
        viewport_.set_following(true);
    }
    ImGui::SameLine();
    if (ImGui::Button("Fit (F)")) fit(state.store());
    ImGui::SameLine();
    ImGui::BeginDisabled(!viewport_.selection());
    if (ImGui::Button("Zoom to selection (Z)")) viewport_.show(*viewport_.selection());
    ImGui::SameLine();
    if (ImGui::Button("Clear selection (Esc)")) viewport_.clear_selection();
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::TextColored(muted_colour(theme), "view %s  |  wheel: zoom  drag: pan  right-drag: select",
                       format_duration(viewport_.range().length()).c_str());
}

void TimelineWindow::legend(Theme theme) {
    const SpanPalette& p = palette(theme);
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const float box = ImGui::GetFontSize();
    auto swatch = [&](const char* name, Rgb colour, bool hatched) {
        const ImVec2 a = ImGui::GetCursorScreenPos();
        const ImVec2 b(a.x + box * 1.6f, a.y + box);
        draw->AddRectFilled(a, b, to_imu32(colour));
        if (hatched) {
            draw_hatch(draw, a, b, to_imu32(p.pageable_stripe), 5.f);
            draw->AddRect(a, b, to_imu32(p.pageable_stripe), 0.f, 0, 1.5f);
        }
        ImGui::Dummy(ImVec2(box * 1.6f, box));
        ImGui::SameLine();
        ImGui::TextUnformatted(name);
        ImGui::SameLine(0.f, box);
    };
    for (int k = 0; k < kSpanKindCount; ++k) swatch(std::string(kSpanKindNames[k]).c_str(), p.kind[k], false);
    swatch("pageable copy", p.kind[static_cast<int>(SpanKind::h2d)], true);
    ImGui::NewLine();
}

void TimelineWindow::refresh_summary(const AppState& state) {
    const auto& selection = viewport_.selection();
    if (!selection) {
        summary_.reset();
        return;
    }
    // Summaries cost a pass over the selected spans: once per change, and while live data still
    // arrives inside the range, twice a second.
    const TimeNs now = now_ns();
    const bool changed = !summary_ || summary_->range != *selection;
    const bool growing =
        state.live() && selection->end > now - 2 * kNsPerS && now - summary_refreshed_ > kSummaryRefresh;
    if (!changed && !growing) return;
    summary_ = summarize_range(state.store(), *selection, state.batch_size());
    summary_refreshed_ = now;
}

void TimelineWindow::summary_line(const AppState& state, Theme theme) {
    (void)state;
    if (!summary_) {
        ImGui::TextColored(muted_colour(theme),
                           "Hover a span to follow its batch; right-drag to select a range.");
        return;
    }
    const Metrics& m = summary_->metrics;
    ImGui::Text(
        "Selection %s: GPU busy %.0f%%, copy/compute overlap %.0f%%, stall %.0f%%, %lld batches, H2D %s",
        format_duration(summary_->range.length()).c_str(), m.gpu_busy * 100, m.overlap * 100, m.stall * 100,
        static_cast<long long>(m.batches), format_rate(m.h2d_gbps * 1e9).c_str());
}

void TimelineWindow::ruler(const PixelMapping& mapping, TimeNs origin, Theme theme, float label_width) {
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const ImVec2 top = ImGui::GetCursorScreenPos();
    const float height = ImGui::GetFontSize() + 6.f;
    const float left = top.x + label_width;
    const ImU32 ink = ImGui::GetColorU32(ImGuiCol_Text);
    const ImU32 faint = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    const TimeNs step = nice_step(std::max<TimeNs>(1, mapping.ns_of_px(ImGui::GetFontSize() * 7.f)));
    const Interval range = mapping.range;
    TimeNs t = origin + ((range.start - origin) / step) * step;
    if (t < range.start) t += step;
    for (; t <= range.end; t += step) {
        const float x = left + mapping.clamp_x(mapping.x_of(t));
        draw->AddLine(ImVec2(x, top.y + height - 6.f), ImVec2(x, top.y + height), ink);
        draw->AddText(ImVec2(x + 3.f, top.y), ink, tick_label(t - origin, step).c_str());
        const float half = left + mapping.clamp_x(mapping.x_of(t + step / 2));
        draw->AddLine(ImVec2(half, top.y + height - 3.f), ImVec2(half, top.y + height), faint);
    }
    if (viewport_.following())
        draw->AddText(ImVec2(top.x, top.y), to_imu32(palette(theme).kind[static_cast<int>(SpanKind::kernel)]),
                      "LIVE");
    else
        draw->AddText(ImVec2(top.x, top.y), ImGui::GetColorU32(warning_colour(theme)), "PAUSED");
    ImGui::Dummy(ImVec2(label_width + static_cast<float>(mapping.width_px), height));
}

void TimelineWindow::lanes(AppState& state, Theme theme, float label_width) {
    const TraceStore& store = state.store();
    ImGui::BeginChild("lanes", ImVec2(0, 0), false, ImGuiWindowFlags_NoScrollWithMouse);
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const float canvas_width = std::max(ImGui::GetContentRegionAvail().x - label_width, 50.f);
    const float row = std::round(ImGui::GetFontSize() * 1.45f);
    const float header = std::round(ImGui::GetFontSize() * 1.3f);
    const float window_top = ImGui::GetWindowPos().y, window_bottom = window_top + ImGui::GetWindowHeight();
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    const float canvas_left = origin.x + label_width;

    TimelineFrame frame{
        store, PixelMapping{viewport_.range(), canvas_width},      theme,       draw, canvas_left, row,
        mouse, ImGui::IsWindowHovered() && mouse.x >= canvas_left, std::nullopt};

    const std::vector<LaneInfo> lanes = lanes_to_draw(store);
    std::unordered_map<LaneId, LaneRow> rows;
    std::unordered_map<LaneId, double> busy;
    if (summary_)
        for (const LaneBusy& b : summary_->lanes) busy[b.lane] = b.busy;
    const ImU32 ink = ImGui::GetColorU32(ImGuiCol_Text);
    const ImU32 faint = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    const ImU32 stripe =
        theme == Theme::high_contrast ? IM_COL32(255, 255, 255, 28) : IM_COL32(255, 255, 255, 10);
    const float canvas_right = canvas_left + canvas_width;
    drawn_items_ = 0;

    float y = origin.y;
    auto visible = [&](float top, float h) { return top + h >= window_top && top <= window_bottom; };
    auto group_header = [&](const std::string& title) {
        if (visible(y, header)) {
            draw->AddText(ImVec2(origin.x, y + 2.f), ink, title.c_str());
            draw->AddLine(ImVec2(origin.x, y + header - 1.f), ImVec2(canvas_right, y + header - 1.f), faint);
        }
        y += header;
    };

    // Lane names stay in their column, however long.
    auto label = [&](float top, ImU32 colour, const std::string& text) {
        draw->PushClipRect(ImVec2(origin.x, top), ImVec2(canvas_left - 4.f, top + row * 2.f), true);
        draw->AddText(ImVec2(origin.x + ImGui::GetFontSize() * 0.5f, top), colour, text.c_str());
        draw->PopClipRect();
    };
    std::optional<LaneGroup> group;
    int index = 0;
    draw->PushClipRect(ImVec2(origin.x, window_top), ImVec2(canvas_right, window_bottom), true);
    for (const LaneInfo& info : lanes) {
        if (group != info.group) {
            group = info.group;
            std::string title = group_title(info.group);
            if (info.group == LaneGroup::device && state.session())
                title += ": " + state.session()->status().device.name;
            group_header(title);
        }
        rows[info.id] = LaneRow{y, row};
        if (visible(y, row)) {
            if (index++ % 2) draw->AddRectFilled(ImVec2(origin.x, y), ImVec2(canvas_right, y + row), stripe);
            std::string name = info.name;
            if (auto b = busy.find(info.id); b != busy.end())
                name += fmt::format("  {:.0f}%", b->second * 100);
            label(y + (row - ImGui::GetFontSize()) * 0.5f, ink, name);
            SpanLane& lane = span_lane(info.id);
            lane.preprocess(frame);
            draw->PushClipRect(ImVec2(canvas_left, y), ImVec2(canvas_right, y + row), true);
            lane.draw(frame, y);
            draw->PopClipRect();
            drawn_items_ += lane.items();
        }
        y += row;
    }
    group_header("Counters");
    for (CounterLane& lane : counter_lanes_) {
        const float h = lane.height(frame);
        if (visible(y, h)) {
            lane.preprocess(frame);
            label(y + 1.f, ink, std::string(counter_kind_name(lane.kind())));
            label(y + 1.f + ImGui::GetFontSize(), faint, lane.describe());
            draw->PushClipRect(ImVec2(canvas_left, y), ImVec2(canvas_right, y + h), true);
            lane.draw(frame, y);
            draw->PopClipRect();
        }
        y += h;
    }

    // Overlays on the canvas: the selected range, then the hovered batch's trail.
    draw->PushClipRect(ImVec2(canvas_left, window_top), ImVec2(canvas_right, window_bottom), true);
    if (const auto& selection = viewport_.selection()) {
        const float x0 = canvas_left + frame.mapping.clamp_x(frame.mapping.x_of(selection->start));
        const float x1 = canvas_left + frame.mapping.clamp_x(frame.mapping.x_of(selection->end));
        draw->AddRectFilled(ImVec2(x0, origin.y), ImVec2(x1, y), IM_COL32(120, 170, 255, 40));
        draw->AddLine(ImVec2(x0, origin.y), ImVec2(x0, y), IM_COL32(120, 170, 255, 200));
        draw->AddLine(ImVec2(x1, origin.y), ImVec2(x1, y), IM_COL32(120, 170, 255, 200));
    }
    if (frame.hovered && frame.hovered->count == 1 && drag_ == Drag::none)
        draw_batch_trail(draw, batch_trail(store, frame.hovered->span.batch, frame.hovered->span.start), rows,
                         frame.mapping, canvas_left, theme);
    draw->PopClipRect();
    draw->PopClipRect();

    ImGui::Dummy(ImVec2(label_width + canvas_width, y - origin.y));
    interact(frame.mapping, ImVec2(canvas_left, window_top), ImVec2(canvas_right, window_bottom));
    if (frame.hovered && drag_ == Drag::none) tooltip(*frame.hovered, store);
    ImGui::EndChild();
}

void TimelineWindow::interact(const PixelMapping& mapping, ImVec2 canvas_min, ImVec2 canvas_max) {
    const ImGuiIO& io = ImGui::GetIO();
    const bool hovered =
        ImGui::IsWindowHovered() && io.MousePos.x >= canvas_min.x && io.MousePos.x < canvas_max.x;
    const double width = mapping.width_px;
    const double mouse_x = io.MousePos.x - canvas_min.x;
    if (hovered && io.MouseWheel != 0.f) {
        if (io.KeyShift)
            ImGui::SetScrollY(ImGui::GetScrollY() - io.MouseWheel * ImGui::GetFontSize() * 3.f);
        else
            viewport_.zoom(std::pow(kWheelZoom, io.MouseWheel), mouse_x / width);
    }
    if (hovered && drag_ == Drag::none) {
        const bool select = ImGui::IsMouseClicked(ImGuiMouseButton_Right) ||
                            (io.KeyShift && ImGui::IsMouseClicked(ImGuiMouseButton_Left));
        if (select) {
            drag_ = Drag::select;
            select_anchor_ = mapping.time_at(mouse_x);
        } else if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
            drag_ = Drag::pan;
        }
    }
    if (drag_ == Drag::pan) {
        if (io.MouseDelta.x != 0.f) viewport_.pan(io.MouseDelta.x / width);
        if (!ImGui::IsMouseDown(ImGuiMouseButton_Left)) drag_ = Drag::none;
    } else if (drag_ == Drag::select) {
        const TimeNs at = mapping.time_at(std::clamp(mouse_x, 0.0, width));
        if (std::abs(mapping.x_of(at) - mapping.x_of(select_anchor_)) >= 3.0)
            viewport_.select(select_anchor_, at);
        if (!ImGui::IsMouseDown(ImGuiMouseButton_Right) && !ImGui::IsMouseDown(ImGuiMouseButton_Left))
            drag_ = Drag::none;
    }
}

void TimelineWindow::tooltip(const HoveredSpan& hovered, const TraceStore& store) {
    const LaneInfo* lane = store.lane_info(hovered.lane);
    const std::string thread = lane ? lane->name : "?";
    // Away from the batch's trail: a host span's stages are below it (on the device), a device span's above.
    const bool above = lane && lane->group == LaneGroup::host;
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    ImGui::SetNextWindowPos(ImVec2(mouse.x + 16.f, above ? mouse.y - 8.f : mouse.y + 24.f), ImGuiCond_Always,
                            ImVec2(0.f, above ? 1.f : 0.f));
    ImGui::BeginTooltip();
    if (hovered.count > 1) {
        ImGui::Text("%s spans folded on %s", format_count(static_cast<double>(hovered.count)).c_str(),
                    thread.c_str());
        ImGui::Text("%s, too narrow to draw one by one: zoom in (wheel) to see them",
                    format_duration(hovered.fold_end - hovered.fold_start).c_str());
        ImGui::EndTooltip();
        return;
    }
    const Span& s = hovered.span;
    ImGui::Text("%s", std::string(span_kind_name(s.kind)).c_str());
    ImGui::Separator();
    if (s.batch != kNoBatch) ImGui::Text("batch     %lld", static_cast<long long>(s.batch));
    ImGui::Text("thread    %s", thread.c_str());
    ImGui::Text("duration  %s", format_duration(s.duration()).c_str());
    if (s.bytes) {
        ImGui::Text("bytes     %s (%s)", format_bytes(static_cast<double>(s.bytes)).c_str(),
                    format_count(static_cast<double>(s.bytes)).c_str());
        const bool moves_bytes = s.kind == SpanKind::h2d || s.kind == SpanKind::d2h ||
                                 s.kind == SpanKind::pin || s.kind == SpanKind::stage;
        if (moves_bytes && s.duration() > 0)
            ImGui::Text("rate      %s",
                        format_rate(static_cast<double>(s.bytes) / ns_to_s(s.duration())).c_str());
    }
    if (s.memory != HostMemory::none)
        ImGui::Text("memory    %s%s", std::string(host_memory_name(s.memory)).c_str(),
                    s.memory == HostMemory::pageable && (s.kind == SpanKind::h2d || s.kind == SpanKind::d2h)
                        ? " (staged by the driver: slower, and the host thread waits)"
                        : "");
    ImGui::EndTooltip();
}

}  // namespace pinscope::gui
