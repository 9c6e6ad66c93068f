#include "app/gui/status_bar.h"

#include <fmt/format.h>

#include "app/gui/model/stretched_time.h"
#include "app/gui/ui_style.h"
#include "core/units/units.h"

namespace pinscope::gui {
namespace {

bool font_fell_back(const StatusExtras& extras) {
    return extras.font_fell_back;
}

}  // namespace

// One line (why this device: its tooltip), plus one for a pipeline's error and one for a missing font.
// Validation warnings are shown under the knob they are about, not again here.
int status_bar_lines(const AppState& state, const StatusExtras& extras) {
    int lines = 1;
    if (state.session() && !state.session()->status().error.empty()) ++lines;
    if (font_fell_back(extras)) ++lines;
    return lines;
}

void draw_status_bar(const AppState& state, const StatusExtras& extras, Theme theme, const Rect& rect,
                     float padding) {
    ImGui::SetNextWindowPos(ImVec2(rect.x, rect.y));
    ImGui::SetNextWindowSize(ImVec2(rect.w, rect.h));
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(padding, padding));
    ImGui::Begin("##status", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize |
                     ImGuiWindowFlags_NoScrollbar);
    ImGui::PopStyleVar();
    const TraceStore& store = state.store();
    if (const LiveSession* live = state.session()) {
        const SessionStatus& s = live->status();
        const bool failed = s.state == SessionState::failed;
        const ImVec4 dot = failed           ? error_colour(theme)
                           : live->paused() ? warning_colour(theme)
                                            : ImVec4(0.3f, 0.85f, 0.4f, 1);
        ImGui::TextColored(dot, "%s", live->state_word());
        if (const std::string mark = slow_motion_mark(state.slow_motion()); !mark.empty()) {
            ImGui::SameLine();
            ImGui::TextColored(warning_colour(theme), "|  %s", mark.c_str());
        }
        ImGui::SameLine();
        // The device's name heads the timeline's device lanes; here it is in the tooltip, with why.
        ImGui::Text("|  %s batches  |  pipeline #%llu  |  %s spans held",
                    format_count(double(s.batches)).c_str(), static_cast<unsigned long long>(s.generation),
                    format_count(double(store.span_count())).c_str());
        if (const uint64_t dropped = live->dropped_spans()) {
            ImGui::SameLine();
            ImGui::TextColored(warning_colour(theme), "| %s spans dropped (the view fell behind)",
                               format_count(double(dropped)).c_str());
        }
        ImGui::SameLine();
        ImGui::TextColored(muted_colour(theme), "|  %.0f fps  |  %s", extras.fps,
                           extras.span_drawing.c_str());
        if (ImGui::IsWindowHovered())
            ImGui::SetTooltip("%s\n%s", s.device.name.c_str(), s.device_why.c_str());
        if (!s.error.empty()) {
            ImGui::TextColored(error_colour(theme), "Pipeline stopped: %s", s.error.c_str());
            ImGui::SameLine();
            ImGui::TextColored(muted_colour(theme),
                               "Change a setting (e.g. fail_at_sample back to -1) to start again.");
        }
    } else if (const Capture* capture = state.capture()) {
        ImGui::TextColored(muted_colour(theme), "CAPTURE");
        ImGui::SameLine();
        ImGui::Text("%s  |  recorded %s  |  %s spans, %s  |  %.0f fps  |  %s",
                    capture->path.filename().string().c_str(), capture->info.created.c_str(),
                    format_count(double(store.span_count())).c_str(),
                    format_bytes(double(capture->file_bytes)).c_str(), extras.fps,
                    extras.span_drawing.c_str());
        if (ImGui::IsWindowHovered())
            ImGui::SetTooltip("%s\n%s\nwritten by pinscope %s", capture->path.string().c_str(),
                              capture->info.device.name.c_str(), capture->info.writer_version.c_str());
        if (const auto& part = capture->info.loaded_range) {
            // Too big to open whole (or asked for with --range): say which part the timeline holds.
            const MetricsWindow& w = capture->info.window;  // a part's times count from its start
            ImGui::SameLine();
            ImGui::TextColored(warning_colour(theme),
                               "|  part %.3f-%.3f s of %.1f s, %s of %s spans (--range picks another)",
                               ns_to_s(part->start - w.start), ns_to_s(part->end - w.start),
                               ns_to_s(std::max<TimeNs>(0, w.end - w.start)),
                               format_count(double(store.span_count())).c_str(),
                               format_count(double(capture->info.spans_in_file)).c_str());
        }
    } else {
        ImGui::Text("Viewing a trace of %s spans (no pipeline)  |  %.0f fps  |  %s",
                    format_count(double(store.span_count())).c_str(), extras.fps,
                    extras.span_drawing.c_str());
    }
    if (font_fell_back(extras))
        ImGui::TextColored(warning_colour(theme), "Font: %s", extras.font_note.c_str());
    ImGui::End();
}

}  // namespace pinscope::gui
