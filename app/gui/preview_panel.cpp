#include "app/gui/preview_panel.h"

#include <cfloat>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <imgui.h>

#include "app/gui/text_field.h"
#include "app/gui/ui_style.h"
#include "core/config/knobs.h"
#include "core/lab/sweep.h"
#include "core/model/host_rates.h"
#include "core/units/units.h"

namespace pinscope::gui {
namespace {

constexpr const char* kPreviewHelp =
    "Edits wait here instead of reaching the running pipeline. The predictor (docs/predict.md), a model "
    "of the pipeline on this host's measured rates, says what the running config and the edited one will "
    "measure on the simulated GPU, in about a tenth of a millisecond each. Apply hands the edits over.\n\n"
    "The rates are the median of the last three measurements of this host taken within ten minutes, by the "
    "app or by pinscope predict, sweep and advise (~/.cache/pinscope/host-rates.json).";

std::string change_of(double now, double edited) {
    if (now <= 0) return "";
    const double change = edited / now - 1;
    if (std::abs(change) < 0.005) return "same";
    return fmt::format("{:+.0f}%", change * 100);
}

// One metric's row: its name, the predicted value now and with the edits.
void row(const char* name, const std::string& now, const std::string& edited,
         const std::string& change = "") {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(name);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(now.c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(change.empty() ? edited.c_str() : (edited + "  " + change).c_str());
}

void predictions(const Metrics& now, const Metrics& edited) {
    if (!ImGui::BeginTable("##preview", 3, ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_RowBg)) return;
    ImGui::TableSetupColumn("predicted");
    ImGui::TableSetupColumn("running");
    ImGui::TableSetupColumn("with edits");
    ImGui::TableHeadersRow();
    row("samples/s", format_short_count(now.samples_per_s), format_short_count(edited.samples_per_s),
        change_of(now.samples_per_s, edited.samples_per_s));
    row("GPU waits for data", format_share(now.stall), format_share(edited.stall));
    row("GPU busy", format_share(now.gpu_busy), format_share(edited.gpu_busy));
    row("copy/kernel overlap", format_share(now.overlap), format_share(edited.overlap));
    ImGui::EndTable();
}

// Where the app's frames and other programs take a share of the cores, the predictions leave it to them
// (core/pipeline/other_cpu_load.h): say so, as a run on a quiet machine would go faster than they say.
void others_note(double others, Theme theme) {
    if (others < 0.1) return;
    const HostRates& host = this_host_rates();  // ready: the predictions above ran on it
    wrapped_message(muted_colour(theme),
                    fmt::format("Predicted with the {:.1f} of this machine's {} cores that the app's "
                                "drawing and other programs leave the pipeline now (they take {:.1f}).",
                                host.leaving(others).usable_cores(), host.cores, others));
}

}  // namespace

void draw_preview(AppState& state, Theme theme) {
    bool on = state.previewing();
    if (ImGui::Checkbox("Preview edits before applying", &on)) state.set_previewing(on);
    help_marker(kPreviewHelp);
    if (!on) return;
    if (state.measuring_host()) {
        wrapped_message(muted_colour(theme),
                        "Measuring this host's CPU and memory rates for the predictor (a few seconds; the "
                        "pipeline is stopped meanwhile). Kept ten minutes: three measurements, and later "
                        "previews answer at once...");
        return;
    }
    ConfigEditor& editor = state.editor();
    const std::vector<KnobDifference> edits = knob_differences(editor.applied(), editor.draft());
    if (edits.empty()) {
        wrapped_message(muted_colour(theme), "Move a slider: the edit waits here with its predicted effect.");
    } else {
        for (const KnobDifference& d : edits)
            ImGui::BulletText("%s", fmt::format("{}: {} -> {}", d.knob->key, d.a, d.b).c_str());
    }
    const std::optional<Metrics> now = state.preview().predicted(editor.applied());
    if (!now) {
        wrapped_message(muted_colour(theme),
                        "The predictor models the simulated GPU, and this pipeline runs on a real one: edits "
                        "wait for Apply, without a prediction.");
    } else if (!edits.empty() && editor.validation().ok()) {
        if (const std::optional<Metrics> edited = state.preview().predicted(editor.draft())) {
            predictions(*now, *edited);
            others_note(state.preview().others(), theme);
        }
    }
    ImGui::BeginDisabled(!editor.has_edits());
    if (ImGui::Button("Apply edits")) editor.apply_edits();
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::BeginDisabled(edits.empty());
    if (ImGui::Button("Discard")) editor.discard_edits();
    ImGui::EndDisabled();
}

void curve_tooltip(PredictionPreview& preview, const PipelineConfig& base, const Knob& knob) {
    const PredictionPreview::Curve* curve = preview.curve(base, knob);
    if (!curve || curve->values.size() < 2) return;
    std::vector<float> rates;
    size_t best = 0;
    for (size_t i = 0; i < curve->samples_per_s.size(); ++i) {
        const double r = curve->samples_per_s[i];
        rates.push_back(std::isnan(r) ? 0.f : static_cast<float>(r));
        if (!std::isnan(r) && (std::isnan(curve->samples_per_s[best]) || r > curve->samples_per_s[best]))
            best = i;
    }
    PipelineConfig shown = base;
    auto label_at = [&](size_t i) {
        const double v = curve->values[i];
        knob.set(shown, knob.type == KnobType::integer ? nlohmann::json(static_cast<int64_t>(v))
                                                       : nlohmann::json(v));
        return knob.label(shown);
    };
    ImVec4 opaque = ImGui::GetStyleColorVec4(ImGuiCol_PopupBg);
    opaque.w = 1.f;  // the panel's text must not show through the plot
    ImGui::PushStyleColor(ImGuiCol_PopupBg, opaque);
    ImGui::BeginTooltip();
    ImGui::TextUnformatted(
        fmt::format("predicted samples/s by {}, the other knobs as set", knob.key).c_str());
    const float width = ImGui::GetFontSize() * 22.f, height = ImGui::GetFontSize() * 5.f;
    ImGui::PlotLines("##curve", rates.data(), static_cast<int>(rates.size()), 0, nullptr, 0.f, FLT_MAX,
                     ImVec2(width, height));
    // The value now, as a line across the plot.
    const ImVec2 lo = ImGui::GetItemRectMin(), hi = ImGui::GetItemRectMax();
    const float x = lo.x + (hi.x - lo.x) * static_cast<float>(curve->nearest) /
                               static_cast<float>(curve->values.size() - 1);
    ImGui::GetWindowDrawList()->AddLine(ImVec2(x, lo.y), ImVec2(x, hi.y), IM_COL32(255, 255, 255, 160), 1.5f);
    ImGui::TextUnformatted(fmt::format("{} .. {}; now {}: {}", label_at(0),
                                       label_at(curve->values.size() - 1), label_at(curve->nearest),
                                       format_short_count(curve->samples_per_s[curve->nearest]))
                               .c_str());
    if (!std::isnan(curve->samples_per_s[best]))
        ImGui::TextUnformatted(
            fmt::format("highest at {}: {}", label_at(best), format_short_count(curve->samples_per_s[best]))
                .c_str());
    ImGui::EndTooltip();
    ImGui::PopStyleColor();
}

}  // namespace pinscope::gui
