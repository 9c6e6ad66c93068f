#include "app/gui/compare_panel.h"

#include <fmt/format.h>
#include <imgui.h>

#include "app/gui/text_field.h"
#include "app/gui/ui_style.h"
#include "core/analysis/metrics_diff.h"
#include "core/config/knobs.h"
#include "core/units/units.h"

namespace pinscope::gui {
namespace {

void knobs_table(const AppState& state, const AppState::Comparison& c, Theme theme) {
    const std::vector<KnobDifference> differences =
        knob_differences(state.capture()->info.config, c.other.info.config);
    if (differences.empty()) {
        ImGui::TextColored(muted_colour(theme), "The same config in A and B.");
        return;
    }
    if (!ImGui::BeginTable("knobs", 3, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) return;
    ImGui::TableSetupColumn("changed");
    ImGui::TableSetupColumn("A");
    ImGui::TableSetupColumn("B");
    ImGui::TableHeadersRow();
    for (const KnobDifference& d : differences) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(std::string(d.knob->key).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(d.a.c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(d.b.c_str());
    }
    ImGui::EndTable();
}

void metrics_table(const AppState::Comparison& c, Theme theme) {
    if (!ImGui::BeginTable("metrics", 4, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) return;
    ImGui::TableSetupColumn("metric");
    ImGui::TableSetupColumn("A");
    ImGui::TableSetupColumn("B");
    ImGui::TableSetupColumn("B/A");
    ImGui::TableHeadersRow();
    for (const MetricComparison& row : compare_metrics(c.mine, c.theirs)) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        if (row.detail) ImGui::Indent();
        ImGui::TextUnformatted(row.short_name.c_str());
        if (row.detail) ImGui::Unindent();
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", row.name.c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(row.a_text.c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(row.b_text.c_str());
        ImGui::TableNextColumn();
        ImGui::TextColored(
            row.change == "same" ? muted_colour(theme) : ImGui::GetStyle().Colors[ImGuiCol_Text], "%s",
            row.change.c_str());
    }
    ImGui::EndTable();
}

void section(const char* title, Theme theme) {
    ImGui::Spacing();
    ImGui::TextColored(muted_colour(theme), "%s", title);
    ImGui::Separator();
}

}  // namespace

void draw_compare_panel(AppState& state, Theme theme, const Rect& rect) {
    const AppState::Comparison* c = state.comparison();
    if (!c || !state.capture()) return;
    ImGui::SetNextWindowPos(ImVec2(rect.x, rect.y));
    ImGui::SetNextWindowSize(ImVec2(rect.w, rect.h));
    ImGui::Begin("Compare", nullptr,
                 ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse);
    wrapped_message(muted_colour(theme), "A: " + state.capture()->path.filename().string() +
                                             "\nB: " + c->other.path.filename().string());
    section("Config", theme);
    knobs_table(state, *c, theme);
    section("Metrics, each over its recorded window", theme);
    metrics_table(*c, theme);
    section("Aligned", theme);
    static int missing = -1;  // a batch asked for that one of the captures lacks
    int batch = static_cast<int>(c->batch);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7.f);
    if (ImGui::InputInt("align at batch", &batch, 1, 10))
        missing = state.align_comparison(batch) ? -1 : batch;
    if (missing >= 0) ImGui::TextColored(warning_colour(theme), "batch %d is not in both captures", missing);
    const TimeNs shift = c->shift;
    wrapped_message(
        muted_colour(theme),
        c->batch == kNoBatch
            ? "No batch is in both: B is shifted to start with A."
            : fmt::format("B is drawn {} {} than it ran, so that batch {} starts at the same time in both.",
                          format_duration(shift < 0 ? -shift : shift), shift < 0 ? "earlier" : "later",
                          c->batch));
    if (ImGui::Button("End the comparison")) state.end_comparison();
    ImGui::End();
}

}  // namespace pinscope::gui
