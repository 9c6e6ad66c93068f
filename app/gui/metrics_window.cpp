#include "app/gui/metrics_window.h"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "app/gui/ui_style.h"
#include "core/analysis/units.h"

namespace pinscope::gui {
namespace {

using Field = double MetricsSample::*;

struct Tile {
    const char* title;
    Field field;
    const char* help;
};

struct PlotSource {
    const std::deque<MetricsSample>* samples;
    Field field;
};

float sample_at(void* data, int i) {
    const auto* source = static_cast<const PlotSource*>(data);
    return static_cast<float>((*source->samples)[static_cast<size_t>(i)].*(source->field));
}

std::string value_text(Field field, const MetricsSample& sample) {
    const double v = sample.*field;
    if (field == &MetricsSample::samples_per_s) return format_count(v) + "/s";
    if (field == &MetricsSample::h2d_gbps)
        return fmt::format("{:.1f} GB/s copying, {:.1f} sustained", v, sample.h2d_sustained_gbps);
    if (field == &MetricsSample::gpu_busy || field == &MetricsSample::overlap ||
        field == &MetricsSample::stall)
        return fmt::format("{:.0f}%", v * 100);
    if (field == &MetricsSample::pinned_bytes) return format_bytes(v);
    return fmt::format("{:.0f}", v);
}

double plot_top(Field field, const AppState& state, const std::deque<MetricsSample>& samples) {
    if (field == &MetricsSample::gpu_busy || field == &MetricsSample::overlap ||
        field == &MetricsSample::stall)
        return 1;
    double top = 0;
    for (const MetricsSample& s : samples) top = std::max(top, s.*field);
    if (field == &MetricsSample::h2d_gbps && state.session())
        top = std::max(top, state.session()->status().device.h2d_peak_gbps);  // the link's peak is the scale
    return top > 0 ? top * 1.1 : 1;
}

constexpr Tile kTiles[] = {
    {"samples/s", &MetricsSample::samples_per_s,
     "Samples that finished their kernel, per second (last second)."},
    {"H2D", &MetricsSample::h2d_gbps,
     "Host-to-device bandwidth while copies run, against the link's practical peak (pinned copies reach "
     "it, pageable ones do not), and what the pipeline sustains: bytes over the last second."},
    {"GPU busy", &MetricsSample::gpu_busy, "Share of time a kernel was running."},
    {"overlap", &MetricsSample::overlap, "Share of kernel time with a copy running at the same time."},
    {"stall", &MetricsSample::stall, "Share of time the train loop waited for data while no kernel ran."},
    {"outstanding", &MetricsSample::outstanding,
     "Batches dispatched to workers and not yet handed to the train loop "
     "(at most prefetch_factor * num_workers)."},
    {"reorder depth", &MetricsSample::reorder_depth,
     "Batches that arrived early and wait in the reorder buffer."},
    {"pinned memory", &MetricsSample::pinned_bytes, "Page-locked host memory the pipeline's pools hold."},
};

}  // namespace

void draw_metrics_window(const AppState& state, Theme theme, ImVec2 pos, ImVec2 size) {
    ImGui::SetNextWindowPos(pos);
    ImGui::SetNextWindowSize(size);
    ImGui::Begin("Metrics", nullptr,
                 ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                     ImGuiWindowFlags_NoScrollbar);
    const std::deque<MetricsSample>& samples = state.history().samples();
    const int columns = 8;
    if (ImGui::BeginTable("tiles", columns,
                          ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_BordersInnerV)) {
        for (const Tile& tile : kTiles)  // H2D says two rates, against the link's peak: it gets room for them
            ImGui::TableSetupColumn(tile.title, ImGuiTableColumnFlags_WidthStretch,
                                    tile.field == &MetricsSample::h2d_gbps ? 2.f : 1.f);
        for (const Tile& tile : kTiles) {
            ImGui::TableNextColumn();
            const double peak = state.session() ? state.session()->status().device.h2d_peak_gbps : 0;
            if (tile.field == &MetricsSample::h2d_gbps && peak > 0)  // the link's peak is the plot's scale
                ImGui::TextColored(muted_colour(theme), "%s, peak %.0f", tile.title, peak);
            else
                ImGui::TextColored(muted_colour(theme), "%s", tile.title);
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tile.help);
            ImGui::TextUnformatted(
                value_text(tile.field, samples.empty() ? MetricsSample{} : samples.back()).c_str());
            PlotSource source{&samples, tile.field};
            const float plot_height =
                std::max(ImGui::GetContentRegionAvail().y - ImGui::GetStyle().ItemSpacing.y,
                         ImGui::GetFontSize() * 2.f);
            ImGui::PushID(tile.title);
            ImGui::PlotLines("##plot", sample_at, &source, static_cast<int>(samples.size()), 0, nullptr, 0.f,
                             static_cast<float>(plot_top(tile.field, state, samples)),
                             ImVec2(ImGui::GetContentRegionAvail().x, plot_height));
            ImGui::PopID();
        }
        ImGui::EndTable();
    }
    ImGui::End();
}

}  // namespace pinscope::gui
