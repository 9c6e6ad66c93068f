#include "app/gui/controls_window.h"

#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "app/gui/preview_panel.h"
#include "app/gui/text_field.h"
#include "app/gui/ui_style.h"
#include "core/config/presets.h"
#include "core/units/units.h"

namespace pinscope::gui {
namespace {

using nlohmann::json;

// What a slider prints inside itself: the value with its unit, or what a "none" value means.
std::string slider_format(const Knob& knob, const PipelineConfig& draft) {
    if (knob.is_none(draft)) return knob.label(draft);  // no printf specifier: ImGui prints it as is
    const std::string unit = knob.unit.empty() ? "" : " " + std::string(knob.unit);
    if (knob.type == KnobType::integer) return "%lld" + unit;
    return (knob.slider_high() <= 100 ? "%.2f" : "%.0f") + unit;
}

bool choice_combo(const Knob& knob, json& value) {
    const std::string current = value.get<std::string>();
    bool changed = false;
    if (ImGui::BeginCombo(std::string(knob.key).c_str(), current.c_str())) {
        for (std::string_view choice : knob.choices()) {
            if (ImGui::Selectable(std::string(choice).c_str(), choice == current) && choice != current) {
                value = std::string(choice);
                changed = true;
            }
        }
        ImGui::EndCombo();
    }
    return changed;
}

constexpr const char* kLengthNote =
    "The app runs until you stop it: seconds and batches bound headless runs (pinscope run).";

}  // namespace

void ControlsWindow::issues(const ConfigEditor& editor, std::string_view option) {
    if (const ConfigIssue* e = editor.error_for(option))
        wrapped_message(error_colour(theme_), e->message);
    else if (const ConfigIssue* w = editor.warning_for(option))
        wrapped_message(warning_colour(theme_), w->message);
}

void ControlsWindow::draw(AppState& state, Theme theme, const Rect& rect, bool& collapsed) {
    theme_ = theme;
    drawn_.clear();
    ImGui::SetNextWindowPos(ImVec2(rect.x, rect.y));
    ImGui::SetNextWindowSize(ImVec2(rect.w, rect.h));
    if (collapsed) return strip(collapsed);
    ImGui::Begin("Controls", nullptr,
                 ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse);
    if (ImGui::SmallButton("\xC2\xAB hide")) collapsed = true;  // «
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("Hide the Controls to a strip (Ctrl+B): more room for the timeline");
    ConfigEditor& editor = state.editor();
    preview_ = state.live() && state.previewing() ? &state.preview() : nullptr;
    if (!state.live()) {
        const Capture* capture = state.capture();
        if (capture && !capture->info.config) {
            // An imported run's capture: showing pinscope's defaults as its settings would be a lie.
            if (capture->info.source.empty()) {
                wrapped_message(muted_colour(theme),
                                "Viewing a capture without a pipeline config (not recorded by pinscope's own "
                                "pipeline): it has no settings to show or run live.");
            } else {
                // A PyTorch profiler trace: the lab can model it and run the model live.
                wrapped_message(
                    muted_colour(theme),
                    fmt::format("Viewing a {}. Its DataLoader is not pinscope's pipeline, but the lab "
                                "can model it from the trace (batch bytes, per-sample CPU, kernel and "
                                "host time per step) and run the model live: then the sliders move "
                                "a model of this run.",
                                capture->info.source));
                if (ImGui::Button("Replay in the lab")) replay_ = true;
                if (ImGui::IsItemHovered())
                    ImGui::SetTooltip(
                        "Run the lab's model of this trace on the simulated GPU (what was inferred "
                        "from what: pinscope replay FILE)");
            }
            ImGui::End();
            return;
        }
        wrapped_message(muted_colour(theme),
                        capture ? "Viewing a capture: these are the settings it was recorded with. To "
                                  "change them, File > Run this capture's config live."
                                : "Viewing a recorded trace: there is no pipeline to control.");
        ImGui::BeginDisabled();
    }
    presets(editor);
    if (state.live()) draw_preview(state, theme);

    // Where the edits stand: applied, or held back by an error (shown again under its knob).
    if (!editor.validation().ok()) {
        wrapped_message(error_colour(theme),
                        fmt::format("Not applied: {} has a problem (see below); the pipeline keeps running "
                                    "the last valid config.",
                                    editor.validation().errors.front().option));
    } else if (!state.apply_error().empty()) {
        wrapped_message(error_colour(theme), "Not applied: " + state.apply_error());
    }
    ImGui::PushItemWidth(-ImGui::GetFontSize() * 8.5f);
    for (KnobGroup g : kKnobGroups) group(editor, g);
    ImGui::PopItemWidth();
    if (!state.live()) ImGui::EndDisabled();
    ImGui::End();
}

void ControlsWindow::group(ConfigEditor& editor, KnobGroup g) {
    const std::string title(knob_group_title(g));
    if (!ImGui::CollapsingHeader(title.c_str(), ImGuiTreeNodeFlags_DefaultOpen)) return;
    if (g == KnobGroup::length) {
        wrapped_message(muted_colour(theme_), kLengthNote);
        ImGui::BeginDisabled();
    }
    for (const Knob& knob : knobs())
        if (knob.group == g) knob_widget(editor, knob);
    if (g == KnobGroup::length) ImGui::EndDisabled();
    if (g == KnobGroup::workload)
        ImGui::TextDisabled("a batch is %s",
                            format_bytes(static_cast<double>(editor.draft().batch_bytes())).c_str());
}

void ControlsWindow::knob_widget(ConfigEditor& editor, const Knob& knob) {
    const PipelineConfig& draft = editor.draft();
    json value = knob.get(draft);
    bool changed = false;
    ImGui::PushID(knob.key.data(), knob.key.data() + knob.key.size());
    ImGui::BeginDisabled(!knob.applies_to(draft));
    switch (knob.type) {
        case KnobType::boolean: {
            bool on = value.get<bool>();
            changed = ImGui::Checkbox(std::string(knob.key).c_str(), &on);
            value = on;
            break;
        }
        case KnobType::integer:
        case KnobType::number:
            changed = slider(knob, value);
            break;
        case KnobType::choice:
            changed = choice_combo(knob, value);
            break;
        case KnobType::shape:
        case KnobType::text:
            changed = text_knob(knob, value);
            break;
    }
    if (preview_ && ImGui::IsItemHovered()) curve_tooltip(*preview_, draft, knob);
    ImGui::EndDisabled();
    if (ImGui::IsItemVisible()) drawn_.push_back(knob.key);
    help_marker(std::string(knob.help).c_str());
    if (auto e = parse_errors_.find(knob.key); e != parse_errors_.end() && !e->second.empty())
        wrapped_message(error_colour(theme_), e->second);
    issues(editor, knob.key);
    ImGui::PopID();
    if (changed) editor.edit([&](PipelineConfig& d) { knob.set(d, value); });
}

bool ControlsWindow::slider(const Knob& knob, json& value) {
    bool changed = false;
    if (knob.optional) {  // a box that sets or unsets it, then the slider
        bool set = !value.is_null();
        if (ImGui::Checkbox("##set", &set)) {
            value = set ? json(knob.unset_means) : json(nullptr);
            changed = true;
        }
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip(
                "%s", fmt::format("Set {} ({}: {})", knob.key, knob.none_label, knob_number(knob.unset_means))
                          .c_str());
        ImGui::SameLine();
    }
    PipelineConfig shown;
    knob.set(shown, value);
    const std::string label(knob.key), format = slider_format(knob, shown);
    const ImGuiSliderFlags flags = knob.logarithmic ? ImGuiSliderFlags_Logarithmic : ImGuiSliderFlags_None;
    const bool bounded = std::isfinite(knob.slider_high()) && std::isfinite(knob.slider_low());
    ImGui::BeginDisabled(value.is_null());
    if (knob.type == KnobType::integer) {
        int64_t v = value.is_null() ? static_cast<int64_t>(knob.unset_means) : value.get<int64_t>();
        // Converted only when finite: an unbounded knob's infinite end has no int64_t (UBSan's
        // float-cast-overflow, which clang's -fsanitize=undefined checks and GCC's does not).
        const int64_t low = bounded ? static_cast<int64_t>(knob.slider_low()) : 0,
                      high = bounded ? static_cast<int64_t>(knob.slider_high()) : 0;
        if (bounded ? ImGui::SliderScalar(label.c_str(), ImGuiDataType_S64, &v, &low, &high, format.c_str(),
                                          flags)
                    : ImGui::InputScalar(label.c_str(), ImGuiDataType_S64, &v)) {
            value = v;
            changed = true;
        }
    } else {
        double v = value.get<double>();
        const double low = knob.slider_low(), high = knob.slider_high();
        if (bounded ? ImGui::SliderScalar(label.c_str(), ImGuiDataType_Double, &v, &low, &high,
                                          format.c_str(), flags)
                    : ImGui::InputDouble(label.c_str(), &v)) {
            value = v;
            changed = true;
        }
    }
    ImGui::EndDisabled();
    return changed;
}

// Shapes and file names: what is typed stays as typed until it parses (a shape) or Enter is pressed
// (a file), so half-typed text never reaches the pipeline.
bool ControlsWindow::text_knob(const Knob& knob, json& value) {
    std::string& typed = typed_[knob.key];
    if (!ImGui::IsAnyItemActive()) typed = value.get<std::string>();
    const bool shape = knob.type == KnobType::shape;
    const ImGuiInputTextFlags flags = shape ? ImGuiInputTextFlags_None : ImGuiInputTextFlags_EnterReturnsTrue;
    const std::string hint(knob.none_label);
    if (!text_field(std::string(knob.key).c_str(), typed, flags, hint.empty() ? nullptr : hint.c_str()))
        return false;
    try {
        value = knob.parse(typed);
        parse_errors_[knob.key].clear();
        return true;
    } catch (const KnobValueError& e) {
        parse_errors_[knob.key] = fmt::format("{} {}.", knob.key, e.what());
        return false;
    }
}

// The Controls folded to a strip: one button brings them back.
void ControlsWindow::strip(bool& collapsed) {
    ImGui::Begin("##controls-strip", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove);
    if (ImGui::Button("\xC2\xBB", ImVec2(-1.f, ImGui::GetFrameHeight() * 2.f))) collapsed = false;  // »
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Show the Controls (Ctrl+B)");
    ImGui::End();
}

void ControlsWindow::select_preset(const Preset* preset) {
    const std::vector<Preset>& all = builtin_presets();
    for (size_t i = 0; i < all.size(); ++i)
        if (&all[i] == preset) preset_ = static_cast<int>(i);
}

const Preset* ControlsWindow::take_chosen_preset() {
    return std::exchange(chosen_, nullptr);
}

void ControlsWindow::presets(ConfigEditor& editor) {
    const std::vector<Preset>& all = builtin_presets();
    const char* shown =
        preset_ >= 0 && preset_ < static_cast<int>(all.size()) ? all[preset_].name.c_str() : "Presets...";
    ImGui::SetNextItemWidth(-1.f);
    if (ImGui::BeginCombo("##preset", shown)) {
        for (int i = 0; i < static_cast<int>(all.size()); ++i) {
            if (ImGui::Selectable(all[i].name.c_str(), i == preset_)) {
                preset_ = i;
                chosen_ = &all[i];
                editor.load_preset(all[i]);
            }
            if (ImGui::IsItemHovered()) {
                ImGui::BeginTooltip();
                ImGui::PushTextWrapPos(ImGui::GetFontSize() * 28.f);
                ImGui::TextUnformatted(all[i].description.c_str());
                ImGui::PopTextWrapPos();
                ImGui::EndTooltip();
            }
        }
        ImGui::EndCombo();
    }
    if (ImGui::Button("Reset to defaults")) {
        preset_ = -1;
        editor.reset_to_defaults();
    }
    if (preset_ >= 0 && preset_ < static_cast<int>(all.size())) {
        wrapped_message(muted_colour(theme_), all[preset_].description);
        wrapped_message(ImGui::GetStyle().Colors[ImGuiCol_Text], "Look at: " + all[preset_].look_at);
    }
}

}  // namespace pinscope::gui
