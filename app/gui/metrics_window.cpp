#include "app/gui/metrics_window.h"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "app/gui/model/metric_tiles.h"
#include "app/gui/ui_style.h"
#include "core/units/units.h"

namespace pinscope::gui {
namespace {

struct PlotSource {
    const std::deque<MetricsSample>* samples;
    double MetricsSample::*field;
};

float sample_at(void* data, int i) {
    const auto* source = static_cast<const PlotSource*>(data);
    return static_cast<float>((*source->samples)[static_cast<size_t>(i)].*(source->field));
}

double plot_top(const MetricTile& tile, const AppState& state, const std::deque<MetricsSample>& samples) {
    if (tile.kind == TileKind::share || tile.kind == TileKind::idle) return 1;
    double top = 0;
    for (const MetricsSample& s : samples) top = std::max(top, s.*tile.field);
    if (tile.field == &MetricsSample::h2d_gbps && state.device())
        top = std::max(top, state.device()->h2d_peak_gbps);  // the link's peak is the scale
    return top > 0 ? top * 1.1 : 1;
}

// What the idle time went to, as the timeline colours the train loop's spans.
struct IdlePart {
    const char* name;
    double Metrics::IdleCauses::*share;
    SpanKind colour_of;
};
constexpr IdlePart kIdleParts[] = {
    {"waiting for the loader", &Metrics::IdleCauses::loader, SpanKind::wait},
    {"staging pageable copies", &Metrics::IdleCauses::staging, SpanKind::stage},
    {"waiting for copies (link busy)", &Metrics::IdleCauses::copies, SpanKind::h2d},
    {"blocked on the GPU", &Metrics::IdleCauses::sync, SpanKind::sync},
};

// One bar, split by cause, `width` wide for all of `sample`'s window.
void idle_bar(ImDrawList* draw, ImVec2 at, float width, float height, const MetricsSample& sample,
              Theme theme) {
    float x = at.x;
    for (const IdlePart& part : kIdleParts) {
        const float w = static_cast<float>(sample.idle.*part.share) * width;
        draw->AddRectFilled(ImVec2(x, at.y), ImVec2(x + w, at.y + height),
                            to_imu32(kind_colour(theme, part.colour_of)));
        x += w;
    }
    const float other = static_cast<float>(sample.idle.other) * width;
    draw->AddRectFilled(ImVec2(x, at.y), ImVec2(x + other, at.y + height), IM_COL32(140, 140, 140, 90));
    draw->AddRect(at, ImVec2(at.x + width, at.y + height), ImGui::GetColorU32(ImGuiCol_Border));
}

// The last minute of idle shares, stacked, one column per sample.
void idle_history(ImDrawList* draw, ImVec2 at, ImVec2 size, const std::deque<MetricsSample>& samples,
                  Theme theme) {
    draw->AddRectFilled(at, ImVec2(at.x + size.x, at.y + size.y), ImGui::GetColorU32(ImGuiCol_FrameBg));
    if (samples.empty()) return;
    const float column = size.x / static_cast<float>(std::max<size_t>(samples.size(), 2) - 1);
    for (size_t i = 0; i < samples.size(); ++i) {
        float y = at.y + size.y;
        const float x0 = at.x + column * static_cast<float>(i);
        for (const IdlePart& part : kIdleParts) {
            const float h = static_cast<float>(samples[i].idle.*part.share) * size.y;
            draw->AddRectFilled(ImVec2(x0, y - h), ImVec2(x0 + column, y),
                                to_imu32(kind_colour(theme, part.colour_of)));
            y -= h;
        }
    }
}

void idle_tooltip(const MetricsSample& sample) {
    ImGui::BeginTooltip();
    ImGui::Text("GPU idle %s of the last second:", format_share(sample.gpu_idle).c_str());
    for (const IdlePart& part : kIdleParts)
        ImGui::BulletText("%s %s", format_share(sample.idle.*part.share).c_str(), part.name);
    ImGui::BulletText("%s other (issuing work, or a host too busy to issue it)",
                      format_share(sample.idle.other).c_str());
    ImGui::EndTooltip();
}

void draw_tile(const MetricTile& tile, const AppState& state, Theme theme, bool plot) {
    const std::deque<MetricsSample>& samples = state.history().samples();
    const MetricsSample& latest = state.headline();  // a capture: its whole recorded window
    ImGui::TextColored(muted_colour(theme), "%s", tile.title);
    const bool hovered_title = ImGui::IsItemHovered();
    const bool paused = state.session() && state.session()->paused();
    const std::string value = tile_value(tile, latest, paused);
    if (paused)
        ImGui::TextColored(warning_colour(theme), "%s", value.c_str());
    else
        ImGui::TextUnformatted(value.c_str());
    ImDrawList* draw = ImGui::GetWindowDrawList();
    if (tile.kind == TileKind::idle && !plot) {  // compact: the split as one bar beside the share
        ImGui::SameLine();
        const ImVec2 at = ImGui::GetCursorScreenPos();
        const float w = ImGui::GetContentRegionAvail().x, h = ImGui::GetFontSize() * 0.7f;
        if (w > 4) idle_bar(draw, ImVec2(at.x, at.y + ImGui::GetFontSize() * 0.15f), w, h, latest, theme);
        ImGui::NewLine();
    }
    if (plot) {
        const ImVec2 size(ImGui::GetContentRegionAvail().x,
                          std::max(ImGui::GetContentRegionAvail().y, ImGui::GetFontSize()));
        if (tile.kind == TileKind::idle) {
            idle_history(draw, ImGui::GetCursorScreenPos(), size, samples, theme);
            ImGui::Dummy(size);
        } else {
            PlotSource source{&samples, tile.field};
            ImGui::PlotLines("##plot", sample_at, &source, static_cast<int>(samples.size()), 0, nullptr, 0.f,
                             static_cast<float>(plot_top(tile, state, samples)), size);
        }
    }
    if (!hovered_title && !ImGui::IsWindowHovered()) return;
    if (tile.kind == TileKind::idle) return idle_tooltip(latest);
    const double peak = state.device() ? state.device()->h2d_peak_gbps : 0;
    const char* over =
        state.capture() ? "\nThe number: over the capture's recorded window; the plot: across it." : "";
    if (tile.field == &MetricsSample::h2d_gbps && peak > 0)
        ImGui::SetTooltip("%s\n%s%s", tile.help, link_peak_label(peak).c_str(), over);
    else
        ImGui::SetTooltip("%s%s", tile.help, over);
}

}  // namespace

void draw_metrics_window(const AppState& state, Theme theme, const Layout& layout) {
    const Rect& r = layout.metrics;
    ImGui::SetNextWindowPos(ImVec2(r.x, r.y));
    ImGui::SetNextWindowSize(ImVec2(r.w, r.h));
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(layout.padding, layout.padding));
    ImGui::Begin(
        "Metrics", nullptr,
        ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoScrollWithMouse);
    ImGui::PopStyleVar();
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const float row_height = layout.tile_height + ImGui::GetStyle().ItemSpacing.y;
    size_t i = 0;
    for (const MetricTile& tile : metric_tiles()) {
        const TilePlace& place = layout.tiles[i++];
        ImGui::SetCursorScreenPos(
            ImVec2(origin.x + place.x, origin.y + row_height * static_cast<float>(place.row)));
        ImGui::BeginChild(tile.title, ImVec2(place.w, layout.tile_height), false,
                          ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
        draw_tile(tile, state, theme, layout.tile_plots);
        ImGui::EndChild();
    }
    ImGui::End();
}

}  // namespace pinscope::gui
