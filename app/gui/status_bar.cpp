#include "app/gui/status_bar.h"

#include <fmt/format.h>

#include "app/gui/ui_style.h"
#include "core/analysis/units.h"

namespace pinscope::gui {
namespace {

bool font_fell_back(const StatusExtras& extras) {
    return extras.font_fell_back;
}

}  // namespace

int status_bar_lines(const AppState& state, const StatusExtras& extras) {
    int lines = state.session() ? 2 : 1;  // the device, and why it was chosen
    if (state.session()) {
        const SessionStatus& s = state.session()->status();
        if (!s.error.empty())
            ++lines;
        else if (!s.warnings.empty())
            ++lines;
    }
    if (font_fell_back(extras)) ++lines;
    return lines;
}

void draw_status_bar(const AppState& state, const StatusExtras& extras, Theme theme, ImVec2 pos,
                     ImVec2 size) {
    ImGui::SetNextWindowPos(pos);
    ImGui::SetNextWindowSize(size);
    ImGui::Begin("##status", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize |
                     ImGuiWindowFlags_NoScrollbar);
    const TraceStore& store = state.store();
    if (const LiveSession* live = state.session()) {
        const SessionStatus& s = live->status();
        const bool failed = s.state == SessionState::failed;
        const ImVec4 dot = failed ? error_colour(theme) : ImVec4(0.3f, 0.85f, 0.4f, 1);
        ImGui::TextColored(dot, failed ? "FAILED" : "RUNNING");
        ImGui::SameLine();
        ImGui::Text("on %s", s.device.name.c_str());
        ImGui::SameLine();
        ImGui::Text("|  %s batches  |  pipeline #%llu  |  %s spans held",
                    format_count(double(s.batches)).c_str(), static_cast<unsigned long long>(s.generation),
                    format_count(double(store.span_count())).c_str());
        if (const uint64_t dropped = live->dropped_spans()) {
            ImGui::SameLine();
            ImGui::TextColored(warning_colour(theme), "| %s spans dropped (the view fell behind)",
                               format_count(double(dropped)).c_str());
        }
        ImGui::SameLine();
        ImGui::TextColored(muted_colour(theme), "|  %.0f fps", extras.fps);
        ImGui::TextColored(muted_colour(theme), "device: %s", s.device_why.c_str());
        if (!s.error.empty()) {
            ImGui::TextColored(error_colour(theme), "Pipeline stopped: %s", s.error.c_str());
            ImGui::SameLine();
            ImGui::TextColored(muted_colour(theme),
                               "Change a setting (e.g. fail_at_sample back to -1) to start again.");
        } else if (!s.warnings.empty()) {
            ImGui::TextColored(warning_colour(theme), "%s", s.warnings.front().c_str());
        }
    } else {
        ImGui::Text("Viewing a trace of %s spans (no pipeline)  |  %.0f fps",
                    format_count(double(store.span_count())).c_str(), extras.fps);
    }
    if (font_fell_back(extras))
        ImGui::TextColored(warning_colour(theme), "Font: %s", extras.font_note.c_str());
    ImGui::End();
}

}  // namespace pinscope::gui
