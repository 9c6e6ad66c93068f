#include "app/gui/file_dialog.h"

#include <imgui.h>

#include "app/gui/text_field.h"
#include "app/gui/ui_style.h"
#include "core/units/units.h"

namespace pinscope::gui {

void FileDialog::open(const std::filesystem::path& suggestion) {
    const std::filesystem::path folder =
        suggestion.has_parent_path() ? suggestion.parent_path() : browser_.folder();
    browser_.go_to(folder);
    browser_.file_name = suggestion.filename().string();
    open_ = focus_ = true;
}

std::optional<std::filesystem::path> FileDialog::draw(const char* title, Theme theme) {
    if (!open_) return std::nullopt;
    const ImGuiIO& io = ImGui::GetIO();
    ImGui::SetNextWindowSize(ImVec2(io.DisplaySize.x * 0.45f, io.DisplaySize.y * 0.6f), ImGuiCond_Appearing);
    ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x * 0.5f, io.DisplaySize.y * 0.5f), ImGuiCond_Appearing,
                            ImVec2(0.5f, 0.5f));
    if (focus_) ImGui::SetNextWindowFocus();
    focus_ = false;
    std::optional<std::filesystem::path> chosen;
    if (ImGui::Begin(title, &open_, ImGuiWindowFlags_NoCollapse)) {
        if (ImGui::Button("Up")) browser_.up();
        ImGui::SameLine();
        if (ImGui::Button("Refresh")) browser_.refresh();
        ImGui::SameLine();
        ImGui::TextUnformatted(browser_.folder().string().c_str());
        const float footer = ImGui::GetFrameHeightWithSpacing() * 2.f + ImGui::GetTextLineHeightWithSpacing();
        ImGui::BeginChild("entries", ImVec2(0, -footer), true);
        if (!browser_.listing_error().empty()) wrapped_message(error_colour(theme), browser_.listing_error());
        std::string enter;
        for (const FileBrowser::Entry& entry : browser_.entries()) {
            const std::string label = entry.folder ? "[dir] " + entry.name : entry.name;
            if (ImGui::Selectable(label.c_str(), !entry.folder && entry.name == browser_.file_name,
                                  ImGuiSelectableFlags_AllowDoubleClick)) {
                if (entry.folder && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) {
                    enter = entry.name;
                } else if (!entry.folder) {
                    browser_.file_name = entry.name;
                    // Opening a file is one double click, as everywhere else.
                    if (browser_.mode() == FileBrowser::Mode::open &&
                        ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left) && browser_.problem().empty()) {
                        chosen = browser_.chosen();
                        open_ = false;
                    }
                }
            }
            if (!entry.folder) {
                ImGui::SameLine(ImGui::GetWindowContentRegionMax().x - ImGui::GetFontSize() * 6.f);
                ImGui::TextDisabled("%s", format_bytes(static_cast<double>(entry.bytes)).c_str());
            }
        }
        ImGui::EndChild();
        if (!enter.empty()) browser_.enter(enter);  // after the loop: entering replaces the list it walks
        text_field("file name", browser_.file_name);
        const std::string problem = browser_.problem();
        if (!problem.empty())
            ImGui::TextColored(warning_colour(theme), "%s", problem.c_str());
        else
            ImGui::TextColored(muted_colour(theme), "%s", browser_.chosen().string().c_str());
        ImGui::BeginDisabled(!problem.empty());
        if (ImGui::Button(browser_.mode() == FileBrowser::Mode::open ? "Open" : "Save")) {
            chosen = browser_.chosen();
            open_ = false;
        }
        ImGui::EndDisabled();
        ImGui::SameLine();
        if (ImGui::Button("Cancel")) open_ = false;
    }
    ImGui::End();
    return chosen;
}

}  // namespace pinscope::gui
