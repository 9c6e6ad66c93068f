#include "app/gui/timeline_window.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "app/gui/keys.h"
#include "app/gui/model/batch_trail.h"
#include "app/gui/model/lane_order.h"
#include "app/gui/model/ruler_step.h"
#include "app/gui/model/stretched_time.h"
#include "app/gui/timeline_flows.h"
#include "app/gui/timeline_legend.h"
#include "app/gui/ui_style.h"
#include "core/config/knobs.h"
#include "core/units/units.h"

// Index of this file:
// [SECTION] Window, toolbar, legend, summary
// [SECTION] Ruler
// [SECTION] Rows: arrange, preprocess, draw, overlays
// [SECTION] Mouse and tooltip

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

// "A: pinned.pinscope · pin_memory=true": each capture's file and the knobs it differs from the other in.
std::pair<std::string, std::string> comparison_titles(const Capture& a, const Capture& b) {
    std::string a_title = "A: " + a.path.filename().string(), b_title = "B: " + b.path.filename().string();
    const char* separator = " \xC2\xB7 ";
    for (const KnobDifference& d : knob_differences(a.info.config, b.info.config)) {
        a_title += fmt::format("{}{}={}", separator, d.knob->key, d.a);
        b_title += fmt::format("{}{}={}", separator, d.knob->key, d.b);
        separator = ", ";
    }
    if (a.info.device.name != b.info.device.name) {
        a_title += " \xC2\xB7 " + a.info.device.name;
        b_title += " \xC2\xB7 " + b.info.device.name;
    }
    return {a_title, b_title};
}

}  // namespace

//------------------------------------------------------------------------------------------------------------
// [SECTION] Window, toolbar, legend, summary
//------------------------------------------------------------------------------------------------------------

TimelineWindow::TimelineWindow() {
    for (int kind = 0; kind < kCounterKindCount; ++kind)
        counter_lanes_.push_back(std::make_unique<CounterLane>(static_cast<CounterKind>(kind)));
    counters_header_.set_title("Counters");
}

SpanLane& TimelineWindow::span_lane(LaneId lane, bool other) {
    auto& slot = (other ? other_span_lanes_ : span_lanes_)[lane];
    if (!slot) slot = std::make_unique<SpanLane>(lane, other);
    return *slot;
}

HeaderLane& TimelineWindow::group_header(const TimelineRow& row) {
    auto& slot = group_headers_[row.group];
    if (!slot) slot = std::make_unique<HeaderLane>();
    slot->set_title(row.title);
    slot->set_group(row.collapsed, row.lanes);
    return *slot;
}

// The categories the frame just drawn showed, in id order (pinscope's kinds first), named as the trace
// names them; a pageable copy in view adds the hatching. With nothing in view, every kind of pinscope's.
void TimelineWindow::update_legend(const TraceStore& store, const std::vector<TimelineLane*>& rows) {
    std::vector<bool> kinds;
    bool pageable = false;
    for (const TimelineLane* row : rows) row->kinds_in_view(kinds, pageable);
    LegendEntries entries;
    for (size_t k = 0; k < kinds.size(); ++k)
        if (kinds[k]) {
            const auto kind = static_cast<SpanKind>(k);
            entries.push_back({std::string(store.category_name(kind)), kind, false});
        }
    if (pageable) entries.push_back({"pageable", SpanKind::h2d, true});
    legend_ = entries.empty() ? all_kinds_legend() : std::move(entries);
}

void TimelineWindow::reset() {
    fitted_ = false;
    viewport_.clear_selection();
    viewport_.set_following(true);
    summary_.reset();
    span_lanes_.clear();
    other_span_lanes_.clear();
}

void TimelineWindow::fit(const TraceStore& store) {
    const TimeNs first = store.first_time(), last = store.latest_span_end();
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

void TimelineWindow::draw(AppState& state, Theme theme, const Rect& rect, float padding) {
    const TraceStore& store = state.store();
    if (!state.live() && !fitted_ && store.span_count() > 0) {  // a finished trace opens showing all of it
        fit(store);
        // A part of a big capture: the part asked for, not all the blocks read around it.
        if (const Capture* capture = state.capture(); capture && capture->info.loaded_range)
            viewport_.show(*capture->info.loaded_range);
        // Asked for a length: the middle of the trace, where a run is past its start-up.
        if (opening_length_) {
            const TimeNs middle = store.first_time() + (store.latest_span_end() - store.first_time()) / 2;
            viewport_.show({middle - *opening_length_ / 2, middle + *opening_length_ / 2});
        }
        fitted_ = true;
    }
    live_ = state.live();
    if (!live_) viewport_.set_following(false);  // a finished trace has no newest data to follow
    viewport_.update(state.live_edge());
    refresh_summary(state);

    ImGui::SetNextWindowPos(ImVec2(rect.x, rect.y));
    ImGui::SetNextWindowSize(ImVec2(rect.w, rect.h));
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(padding, padding));
    ImGui::Begin(
        "Timeline", nullptr,
        ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoScrollWithMouse);
    ImGui::PopStyleVar();
    draw_legend(theme, legend_);
    const float label_width = ImGui::GetFontSize() * 10.f;
    const float canvas_width =
        std::max(ImGui::GetContentRegionAvail().x - label_width - ImGui::GetStyle().ScrollbarSize, 50.f);
    ruler(PixelMapping{viewport_.range(), canvas_width}, state.time_origin(), theme, label_width);
    lanes(state, theme, label_width);
    ImGui::End();
}

// One line however narrow the window: the buttons, then as much of the view's length and the mouse's
// help as fits (all of it in the tooltip of the view's length).
void TimelineWindow::toolbar(const AppState& state, Theme theme) {
    if (!state.live()) {
        // A finished trace has nothing to follow.
    } else if (viewport_.following()) {
        // The view stops following; the pipeline runs on (P pauses the pipeline itself).
        if (ImGui::Button("Freeze view (Space)")) viewport_.set_following(false);
        ImGui::SameLine();
    } else {
        if (ImGui::Button("Follow live (Space)")) viewport_.set_following(true);
        ImGui::SameLine();
    }
    if (ImGui::Button("Fit (F)")) fit(state.store());
    ImGui::SameLine();
    ImGui::BeginDisabled(!viewport_.selection());
    if (ImGui::Button("Zoom (Z)")) viewport_.show(*viewport_.selection());
    ImGui::SameLine();
    if (ImGui::Button("Clear (Esc)")) viewport_.clear_selection();
    ImGui::EndDisabled();
    constexpr const char* kMouse = "wheel: zoom  drag: pan  right-drag: select";
    const std::string view = "view " + stretched_duration(viewport_.range().length(), state.slow_motion());
    const std::string full = view + "  |  " + kMouse;
    ImGui::SameLine();
    const float left = ImGui::GetContentRegionAvail().x;
    ImGui::TextColored(muted_colour(theme), "%s",
                       ImGui::CalcTextSize(full.c_str()).x <= left ? full.c_str() : view.c_str());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", kMouse);
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
    summary_ = summarize_range(state.store(), *selection, state.batch_size(), state.slow_motion());
    summary_refreshed_ = now;
}

// A selected range's numbers float over the top of the lanes: they take no room from them.
void TimelineWindow::summary_overlay(const TimelineFrame& frame, float top) {
    if (!summary_) return;
    const Metrics& m = summary_->metrics;
    const std::string text = fmt::format(
        "selection {}: compute busy {}, copy busy {}, overlap {}, GPU idle {} (loader {}, staging {}, "
        "copies {}, sync {}), {} batches, H2D {}",
        format_duration(summary_->range.length()), format_share(m.gpu_busy), format_share(m.copy_busy),
        format_share(m.overlap), format_share(m.gpu_idle), format_share(m.idle.loader),
        format_share(m.idle.staging), format_share(m.idle.copies), format_share(m.idle.sync), m.batches,
        format_gbps(m.h2d_gbps));
    const ImVec2 size = ImGui::CalcTextSize(text.c_str());
    const ImVec2 at(frame.canvas_left + 4.f, top + 2.f);
    frame.draw->AddRectFilled(ImVec2(at.x - 3.f, at.y - 1.f),
                              ImVec2(at.x + size.x + 3.f, at.y + size.y + 1.f),
                              to_imu32(palette(frame.theme).background, 220));
    frame.draw->AddText(at, ImGui::GetColorU32(ImGuiCol_Text), text.c_str());
}

//------------------------------------------------------------------------------------------------------------
// [SECTION] Ruler
//------------------------------------------------------------------------------------------------------------

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
    if (!live_)
        draw->AddText(ImVec2(top.x, top.y), ImGui::GetColorU32(ImGuiCol_Text), "CAPTURE");
    else if (viewport_.following())
        draw->AddText(ImVec2(top.x, top.y), to_imu32(palette(theme).kind[static_cast<int>(SpanKind::kernel)]),
                      "LIVE");
    else
        draw->AddText(ImVec2(top.x, top.y), ImGui::GetColorU32(warning_colour(theme)), "PAUSED");
    ImGui::Dummy(ImVec2(label_width + static_cast<float>(mapping.width_px), height));
}

//------------------------------------------------------------------------------------------------------------
// [SECTION] Rows: arrange, preprocess, draw, overlays
//------------------------------------------------------------------------------------------------------------

// This frame's rows, top to bottom: a header per group of the lane tree (a process, a device) and its
// lanes unless folded, then the counters. Comparing, the shown capture's lanes (A) come first and the
// other's (B) under them, each under a header that names its file.
std::vector<TimelineLane*> TimelineWindow::arrange(const AppState& state) {
    std::vector<TimelineLane*> rows;
    if (const AppState::Comparison* c = state.comparison()) {
        const auto [a_title, b_title] = comparison_titles(*state.capture(), c->other);
        a_header_.set_title(a_title);
        rows.push_back(&a_header_);
        for (const LaneInfo& info : lanes_to_draw(state.store())) rows.push_back(&span_lane(info.id));
        b_header_.set_title(b_title);
        rows.push_back(&b_header_);
        for (const LaneInfo& info : lanes_to_draw(c->other.store)) rows.push_back(&span_lane(info.id, true));
    } else {
        const std::string device = state.device() ? state.device()->name : "";
        for (const TimelineRow& row : timeline_rows(state.store(), collapsed_, device))
            rows.push_back(row.header ? static_cast<TimelineLane*>(&group_header(row))
                                      : &span_lane(row.lane));
    }
    rows.push_back(&counters_header_);
    for (auto& lane : counter_lanes_) rows.push_back(lane.get());
    return rows;
}

void TimelineWindow::lanes(AppState& state, Theme theme, float label_width) {
    const TraceStore& store = state.store();
    ImGui::BeginChild("lanes", ImVec2(0, 0), false, ImGuiWindowFlags_NoScrollWithMouse);
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const float canvas_width = std::max(ImGui::GetContentRegionAvail().x - label_width, 50.f);
    const float window_top = ImGui::GetWindowPos().y, window_bottom = window_top + ImGui::GetWindowHeight();
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    std::unordered_map<LaneId, double> busy;
    if (summary_)
        for (const LaneBusy& b : summary_->lanes) busy[b.lane] = b.busy;
    TimelineFrame frame{store,
                        PixelMapping{viewport_.range(), canvas_width},
                        theme,
                        ImGui::GetWindowDrawList(),
                        origin.x,
                        origin.x + label_width,
                        lane_height(ImGui::GetFontSize()),
                        mouse,
                        ImGui::IsWindowHovered() && mouse.x >= origin.x + label_width,
                        summary_ ? &busy : nullptr,
                        std::nullopt};
    if (const AppState::Comparison* c = state.comparison()) {
        frame.other = &c->other.store;
        frame.other_shift = c->shift;
    }
    if (renderer_ && renderer_->available() && !state.live()) frame.gpu = renderer_;

    // Lay out every row, let the visible ones decide what to draw from the model, then draw them.
    const std::vector<TimelineLane*> rows = arrange(state);
    std::vector<float> tops;
    float y = origin.y;
    for (TimelineLane* row : rows) {
        tops.push_back(y);
        y += row->height(frame);
    }
    auto visible = [&](size_t i) {
        return tops[i] + rows[i]->height(frame) >= window_top && tops[i] <= window_bottom;
    };
    for (size_t i = 0; i < rows.size(); ++i)
        if (visible(i)) rows[i]->preprocess(frame);

    const float canvas_right = frame.canvas_left + canvas_width;
    const ImU32 stripe =
        theme == Theme::high_contrast ? IM_COL32(255, 255, 255, 28) : IM_COL32(255, 255, 255, 10);
    frame.draw->PushClipRect(ImVec2(origin.x, window_top), ImVec2(canvas_right, window_bottom), true);
    drawn_items_ = 0;
    int striped = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
        if (!visible(i)) continue;
        if (rows[i]->striped() && striped++ % 2)
            frame.draw->AddRectFilled(ImVec2(origin.x, tops[i]),
                                      ImVec2(canvas_right, tops[i] + rows[i]->height(frame)), stripe);
        rows[i]->draw(frame, tops[i]);
        drawn_items_ += rows[i]->drawn_items();
    }
    overlays(frame, rows, tops, origin.y, y);
    summary_overlay(frame, origin.y);
    frame.draw->PopClipRect();
    update_legend(store, rows);
    for (auto& [key, header] : group_headers_)
        if (header->take_click() && !collapsed_.erase(key)) collapsed_.insert(key);

    ImGui::Dummy(ImVec2(label_width + canvas_width, y - origin.y));
    interact(frame.mapping, ImVec2(frame.canvas_left, window_top), ImVec2(canvas_right, window_bottom));
    if (frame.hovered && drag_ == Drag::none) {
        const AppState::Comparison* compared = state.comparison();
        const double slow_motion = frame.hovered->other && compared
                                       ? capture_slow_motion(compared->other.info)
                                       : state.slow_motion();
        tooltip(*frame.hovered, frame.store_of(frame.hovered->other), slow_motion);
    }
    ImGui::EndChild();
}

// Over the canvas: the selected range, then the hovered batch's trail across the rows it touches.
void TimelineWindow::overlays(const TimelineFrame& frame, const std::vector<TimelineLane*>& rows,
                              const std::vector<float>& tops, float top, float bottom) {
    const float right = frame.canvas_left + static_cast<float>(frame.mapping.width_px);
    frame.draw->PushClipRect(ImVec2(frame.canvas_left, top), ImVec2(right, bottom), true);
    if (const auto& selection = viewport_.selection()) {
        const float x0 = frame.canvas_left + frame.mapping.clamp_x(frame.mapping.x_of(selection->start));
        const float x1 = frame.canvas_left + frame.mapping.clamp_x(frame.mapping.x_of(selection->end));
        frame.draw->AddRectFilled(ImVec2(x0, top), ImVec2(x1, bottom), IM_COL32(120, 170, 255, 40));
        frame.draw->AddLine(ImVec2(x0, top), ImVec2(x0, bottom), IM_COL32(120, 170, 255, 200));
        frame.draw->AddLine(ImVec2(x1, top), ImVec2(x1, bottom), IM_COL32(120, 170, 255, 200));
    }
    if (frame.hovered && frame.hovered->count == 1 && drag_ == Drag::none) {
        // The trail stays in the hovered span's capture: A's batch 7 is not B's.
        const bool other = frame.hovered->other;
        std::unordered_map<LaneId, LaneRow> by_lane;
        for (size_t i = 0; i < rows.size(); ++i)
            if (std::optional<LaneId> lane = rows[i]->trace_lane(); lane && rows[i]->shows_other() == other)
                by_lane[*lane] = LaneRow{tops[i], rows[i]->height(frame)};
        draw_batch_trail(
            frame.draw,
            batch_trail(frame.store_of(other), frame.hovered->span.batch, frame.hovered->span.start), by_lane,
            frame.mapping_of(other), frame.canvas_left, frame.theme);
    }
    frame.draw->PopClipRect();
}

//------------------------------------------------------------------------------------------------------------
// [SECTION] Mouse and tooltip
//------------------------------------------------------------------------------------------------------------

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

// `slow_motion`: how many times longer than real the spans' run drew its durations.
void TimelineWindow::tooltip(const HoveredSpan& hovered, const TraceStore& store, double slow_motion) {
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
                    stretched_duration(hovered.fold_end - hovered.fold_start, slow_motion).c_str());
        ImGui::EndTooltip();
        return;
    }
    const Span& s = hovered.span;
    ImGui::Text("%s", std::string(store.category_name(s.kind)).c_str());
    ImGui::Separator();
    if (s.depth > 0) ImGui::Text("depth     %u", static_cast<unsigned>(s.depth));
    if (s.batch != kNoBatch) ImGui::Text("batch     %lld", static_cast<long long>(s.batch));
    if (s.name != kNoName) ImGui::Text("name      %s", std::string(store.name(s.name)).c_str());
    ImGui::Text("thread    %s", thread.c_str());
    ImGui::Text("duration  %s", stretched_duration(s.duration(), slow_motion).c_str());
    if (s.bytes) {
        ImGui::Text("bytes     %s (%s)", format_bytes(static_cast<double>(s.bytes)).c_str(),
                    format_count(static_cast<double>(s.bytes)).c_str());
        const bool moves_bytes = is_copy(s.kind) || s.kind == SpanKind::pin || s.kind == SpanKind::stage;
        const double real_seconds = ns_to_s(s.duration()) / std::max(slow_motion, 1.0);
        if (moves_bytes && real_seconds > 0)
            ImGui::Text("rate      %s", format_rate(static_cast<double>(s.bytes) / real_seconds).c_str());
    }
    if (s.memory != HostMemory::none)
        ImGui::Text("memory    %s%s", std::string(host_memory_name(s.memory)).c_str(),
                    s.memory == HostMemory::pageable && is_copy(s.kind)
                        ? " (staged by the driver: slower, and the host thread waits)"
                        : "");
    if (s.cut) ImGui::Text("cut       the run ended before this work did");
    if (s.kind == SpanKind::tracing)
        ImGui::Text("the trace's ring was full: this thread waited for the collector (what observing cost)");
    ImGui::EndTooltip();
}

}  // namespace pinscope::gui
