#include "app/gui/capture_files.h"

#include <fmt/format.h>
#include <imgui.h>

#include "app/gui/text_field.h"
#include "app/gui/ui_style.h"
#include "core/units/units.h"

// Index of this file:
// [SECTION] Opening
// [SECTION] The menu
// [SECTION] Windows: progress, export, messages

namespace pinscope::gui {
namespace {

constexpr const char* kExportFormats[] = {"PNG picture", "SVG picture", "Perfetto trace (JSON)",
                                          "CSV (batches, metrics)"};

std::string file_label(const std::filesystem::path& file) {
    return file.filename().string() + "   " + file.parent_path().string();
}

}  // namespace

//------------------------------------------------------------------------------------------------------------
// [SECTION] Opening
//------------------------------------------------------------------------------------------------------------

void CaptureFiles::open(const std::filesystem::path& file, CaptureLoader::Purpose purpose,
                        std::optional<CaptureRange> range) {
    error_.clear();
    message_.clear();
    loader_.reset();  // cancels a load in progress
    loader_ = std::make_unique<CaptureLoader>(file, purpose, range);
}

void CaptureFiles::poll_loader() {
    if (!loader_ || !loader_->ready()) return;
    const std::filesystem::path file = loader_->path();
    if (loader_->purpose() == CaptureLoader::Purpose::view)
        loaded_view_ = loader_->take_view();
    else
        loaded_compare_ = loader_->take_capture();
    if (!loader_->error().empty()) {
        error_ = loader_->error();
        if (!std::filesystem::exists(file)) recent_.forget(file);
    } else {
        recent_.add(file);
        const Capture* opened = loaded_view_      ? loaded_view_->capture()
                                : loaded_compare_ ? &*loaded_compare_
                                                  : nullptr;
        if (opened && !opened->info.config_problem.empty())
            error_ = fmt::format("{}: its config would not run ({}); its spans are shown as recorded",
                                 file.filename().string(), opened->info.config_problem);
    }
    loader_.reset();
}

std::unique_ptr<AppState> CaptureFiles::take_view() {
    poll_loader();
    if (compared_live_) return std::move(compared_live_);
    return std::move(loaded_view_);
}

std::optional<Capture> CaptureFiles::take_compare() {
    poll_loader();
    std::optional<Capture> taken = std::move(loaded_compare_);
    loaded_compare_.reset();
    return taken;
}

// A live run's A and B: A is kept now; B, later, is the same stretch after the sliders moved, and the
// two open side by side.
void CaptureFiles::keep_snapshot(AppState& state, Interval view) {
    const TimeNs length = static_cast<TimeNs>(snapshot_seconds_ * 1e9);
    const TimeNs end = state.live() ? state.live_edge() : view.end;
    Capture snapshot = state.keep({end - length, end});
    if (!kept_a_) {
        kept_a_ = std::move(snapshot);
        message_ = fmt::format("kept the last {:.0f} s as A: change a setting, then File > Compare with A",
                               snapshot_seconds_);
        return;
    }
    compared_live_ = std::make_unique<AppState>(std::move(*kept_a_));
    compared_live_->compare_with(std::move(snapshot));
    kept_a_.reset();
}

//------------------------------------------------------------------------------------------------------------
// [SECTION] The menu
//------------------------------------------------------------------------------------------------------------

void CaptureFiles::choose_file_to_open() {
    dialog_purpose_ = CaptureLoader::Purpose::view;
    open_dialog_.open(working_folder() / "");
}

void CaptureFiles::menu_items(AppState& state, Interval view) {
    if (ImGui::MenuItem("Open capture...", "Ctrl+O")) choose_file_to_open();
    if (ImGui::BeginMenu("Open recent", !recent_.files().empty())) {
        for (const std::filesystem::path& file : recent_.files())
            if (ImGui::MenuItem(file_label(file).c_str())) open(file);
        ImGui::EndMenu();
    }
    if (ImGui::MenuItem("Compare with capture...", nullptr, false, state.capture() != nullptr)) {
        dialog_purpose_ = CaptureLoader::Purpose::compare;
        open_dialog_.open(working_folder() / "");
    }
    if (state.comparison() && ImGui::MenuItem("End the comparison")) state.end_comparison();
    ImGui::Separator();
    if (ImGui::MenuItem("Save capture as...", nullptr, false, state.capture() != nullptr))
        save_dialog_.open(state.capture()->path.empty() ? working_folder() / "capture.pinscope"
                                                        : state.capture()->path);
    if (ImGui::MenuItem("Export view...", "Ctrl+E", false, state.store().span_count() > 0))
        export_open_ = true;
    ImGui::Separator();
    if (state.live()) {
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8.f);
        ImGui::SliderFloat("seconds to keep", &snapshot_seconds_, 0.5f, 30.f, "%.1f s");
        if (ImGui::MenuItem(kept_a_ ? "Compare the last seconds with A" : "Keep the last seconds as A"))
            keep_snapshot(state, view);
        if (kept_a_ && ImGui::MenuItem("Forget A")) kept_a_.reset();
    }
    if (state.capture() && ImGui::MenuItem("Run this capture's config live", nullptr, false,
                                           state.capture()->info.config.has_value()))
        run_live_ = true;
}

//------------------------------------------------------------------------------------------------------------
// [SECTION] Windows: progress, export, messages
//------------------------------------------------------------------------------------------------------------

void CaptureFiles::draw(AppState& state, Interval view, Theme theme) {
    poll_loader();
    if (auto chosen = open_dialog_.draw("Open capture", theme)) open(*chosen, dialog_purpose_);
    if (auto chosen = save_dialog_.draw("Save capture as", theme)) {
        try {
            save_capture(*chosen, state.store(), state.capture()->info);
            recent_.add(*chosen);
            message_ = "saved " + chosen->string();
        } catch (const std::exception& e) {
            error_ = e.what();
        }
    }
    if (auto chosen = export_dialog_.draw("Export to", theme)) export_request_.file = *chosen;
    if (loader_) progress_window();
    if (export_open_) export_window(state, view, theme);

    if (error_.empty() && message_.empty()) return;
    const ImGuiIO& io = ImGui::GetIO();
    ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x * 0.5f, io.DisplaySize.y - ImGui::GetFontSize() * 4.f),
                            ImGuiCond_Always, ImVec2(0.5f, 1.f));
    ImGui::Begin("##file message", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoMove);
    if (!error_.empty())
        ImGui::TextColored(error_colour(theme), "%s", error_.c_str());
    else
        ImGui::TextUnformatted(message_.c_str());
    ImGui::SameLine();
    if (ImGui::SmallButton("OK")) error_.clear(), message_.clear();
    ImGui::End();
}

void CaptureFiles::progress_window() {
    const ImGuiIO& io = ImGui::GetIO();
    ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x * 0.5f, io.DisplaySize.y * 0.4f), ImGuiCond_Always,
                            ImVec2(0.5f, 0.5f));
    ImGui::SetNextWindowSize(ImVec2(ImGui::GetFontSize() * 30.f, 0.f));
    ImGui::Begin("Opening", nullptr,
                 ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_AlwaysAutoResize);
    ImGui::TextUnformatted(loader_->path().string().c_str());
    const float share = static_cast<float>(loader_->progress());
    ImGui::ProgressBar(
        share, ImVec2(-1.f, 0.f),
        loader_->preparing() ? "preparing the view" : fmt::format("{:.0f}%", share * 100).c_str());
    if (ImGui::Button("Cancel")) loader_.reset();  // waits for the reader to notice, a moment at most
    ImGui::End();
}

void CaptureFiles::export_window(AppState& state, Interval view, Theme theme) {
    ImGui::SetNextWindowSize(ImVec2(ImGui::GetFontSize() * 32.f, 0.f), ImGuiCond_Appearing);
    if (!ImGui::Begin("Export view", &export_open_,
                      ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_AlwaysAutoResize)) {
        ImGui::End();
        return;
    }
    ImGui::TextColored(muted_colour(theme), "The timeline's view now: %s",
                       format_duration(view.length()).c_str());
    int format = static_cast<int>(export_request_.format);
    for (int i = 0; i < 4; ++i) ImGui::RadioButton(kExportFormats[i], &format, i);
    export_request_.format = static_cast<ExportFormat>(format);
    if (export_request_.file.empty()) export_request_.file = working_folder() / "timeline.png";
    export_request_.file.replace_extension(export_extension(export_request_.format));
    const bool picture =
        export_request_.format == ExportFormat::png || export_request_.format == ExportFormat::svg;
    if (picture) {
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10.f);
        ImGui::InputInt2("size (pixels)", &export_request_.width);
        ImGui::Checkbox("dark colours (as on screen; light ones print better)", &export_request_.dark);
    }
    std::string path = export_request_.file.string();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 22.f);
    if (text_field("##export file", path)) export_request_.file = path;
    ImGui::SameLine();
    if (ImGui::Button("Browse...")) export_dialog_.open(export_request_.file);
    const bool busy = export_ && !export_->done();
    ImGui::BeginDisabled(busy);
    if (ImGui::Button("Export")) {
        try {
            export_ = std::make_unique<ViewExport>(export_request_, state.store(), view, state.describe());
        } catch (const std::exception& e) {
            export_.reset();
            error_ = e.what();
        }
    }
    ImGui::EndDisabled();
    if (busy) {
        ImGui::SameLine();
        ImGui::TextUnformatted("writing...");
    } else if (export_) {
        const std::string& said = export_->message();
        ImGui::TextColored(export_->failed() ? error_colour(theme) : muted_colour(theme), "%s", said.c_str());
    }
    ImGui::End();
}

}  // namespace pinscope::gui
