#include "app/gui/record_window.h"

#include <imgui.h>

#include "app/gui/text_field.h"
#include "app/gui/ui_style.h"

namespace pinscope::gui {

void RecordWindow::draw(AppState& state, Theme theme) {
    if (open_) draw_controls(state, theme);
    // After the Record window, so the dialog it opens comes up in front of it.
    if (auto chosen = dialog_.draw("Record to", theme)) file_ = *chosen;
}

void RecordWindow::draw_controls(AppState& state, Theme theme) {
    ImGui::SetNextWindowSize(ImVec2(ImGui::GetFontSize() * 34.f, 0.f), ImGuiCond_Appearing);
    const ImGuiIO& io = ImGui::GetIO();
    ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x * 0.5f, io.DisplaySize.y * 0.3f), ImGuiCond_Appearing,
                            ImVec2(0.5f, 0.f));
    if (!ImGui::Begin("Record", &open_, ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_AlwaysAutoResize)) {
        ImGui::End();
        return;
    }
    Recording* recording = state.recording();
    const bool busy = recording && !recording->finished();
    ImGui::BeginDisabled(busy);
    ImGui::RadioButton("the last", &mode_, 0);
    ImGui::SameLine();
    ImGui::RadioButton("the next", &mode_, 1);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10.f);
    ImGui::SliderFloat("seconds", &seconds_, 1.f, static_cast<float>(Recording::kMaxSeconds), "%.0f s");
    std::string path = file_.string();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 24.f);
    if (text_field("##file", path)) file_ = path;
    ImGui::SameLine();
    if (ImGui::Button("Browse...")) dialog_.open(file_);
    if (ImGui::Button("Record")) {
        error_.clear();
        try {
            state.start_recording({mode_ == 0 ? RecordMode::last : RecordMode::next, seconds_, file_});
        } catch (const std::exception& e) {
            error_ = e.what();
        }
    }
    ImGui::EndDisabled();
    ImGui::TextColored(muted_colour(theme), "%s",
                       named_as_capture(file_)
                           ? "A capture: File > Open shows it again, here or on any machine."
                           : "Chrome Trace JSON: open it in ui.perfetto.dev or chrome://tracing.");
    if (!error_.empty()) ImGui::TextColored(error_colour(theme), "%s", error_.c_str());
    if ((recording = state.recording())) {
        const double progress = recording->progress(now_ns());
        ImGui::ProgressBar(
            static_cast<float>(progress), ImVec2(-1.f, 0.f),
            recording->phase() == RecordPhase::capturing ? "capturing" : recording->message().c_str());
        if (recording->phase() == RecordPhase::failed)
            ImGui::TextColored(error_colour(theme), "%s", recording->message().c_str());
        else if (recording->phase() == RecordPhase::done)
            ImGui::TextUnformatted(recording->message().c_str());
    }
    ImGui::End();
}

}  // namespace pinscope::gui
