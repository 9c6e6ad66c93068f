#include "app/gui/lesson_panel.h"

#include <algorithm>

#include <fmt/format.h>
#include <imgui.h>

#include "app/gui/keys.h"
#include "core/config/knobs.h"

namespace pinscope::gui {
namespace {

constexpr float kSlideScale = 1.35f;    // presentation: the page's text against the app's
constexpr float kQuestionScale = 1.6f;  // and the question's

bool key(ImGuiKey key) {
    return ImGui::IsKeyPressed(ImGui::GetKeyIndex(key), false);
}

void wrapped(const std::string& text) {
    ImGui::TextWrapped("%s", text.c_str());
}

// A radio button whose label wraps at the panel's edge (a plain RadioButton's label is one line).
bool radio_wrapped(size_t id, const std::string& label, bool active) {
    ImGui::PushID(static_cast<int>(id));
    const bool pressed = ImGui::RadioButton("##choice", active);
    ImGui::SameLine();
    wrapped(label);
    ImGui::PopID();
    return pressed;
}

}  // namespace

void LessonPanel::open(AppState& state, size_t index) {
    const std::vector<Lesson>& all = builtin_lessons();
    if (index >= all.size()) return;
    index_ = index;
    const PipelineConfig machine = state.editor().applied();
    player_.open(all[index], machine);
    shown_run_ = 0;
    view_seconds_ = all[index].view_seconds;
    state.editor().edit([&](PipelineConfig& draft) { draft = player_.run_config(0); });
}

double LessonPanel::take_view_seconds() {
    return std::exchange(view_seconds_, 0.0);
}

void LessonPanel::keys() {
    if (!player_.lesson() || ImGui::GetIO().WantTextInput) return;
    if (key(ImGuiKey_RightArrow) || key(ImGuiKey_PageDown) || key(ImGuiKey_Enter)) player_.next();
    if (key(ImGuiKey_LeftArrow) || key(ImGuiKey_PageUp)) player_.previous();
    const size_t choices = player_.lesson()->question.choices.size();
    for (size_t i = 0; i < std::min<size_t>(choices, 9); ++i)
        if (ImGui::IsKeyPressed(keys::kOne + static_cast<int>(i), false) &&
            player_.page_kind() == LessonPlayer::Page::question)
            player_.choose(i);
}

void LessonPanel::lesson_list(AppState& state) {
    const std::vector<Lesson>& all = builtin_lessons();
    const char* current = player_.lesson() ? player_.lesson()->title.c_str() : "Choose a lesson...";
    ImGui::SetNextItemWidth(-1);
    if (ImGui::BeginCombo("##lesson", current)) {
        for (size_t i = 0; i < all.size(); ++i)
            if (ImGui::Selectable(fmt::format("{}. {}", i + 1, all[i].title).c_str(),
                                  player_.lesson() == &all[i]))
                open(state, i);
        ImGui::EndCombo();
    }
}

// Each run of the lesson as a button that shows it live; the one shown is marked.
void LessonPanel::run_buttons(AppState& state) {
    const Lesson& lesson = *player_.lesson();
    ImGui::TextDisabled("show live:");
    for (size_t i = 0; i < lesson.runs.size(); ++i) {
        const bool shown = i == shown_run_;
        if (radio_wrapped(100 + i, lesson.runs[i].label, shown) && !shown) {
            shown_run_ = i;
            state.editor().edit([&](PipelineConfig& draft) { draft = player_.run_config(i); });
        }
    }
}

void LessonPanel::answer(Theme theme) {
    const Lesson& lesson = *player_.lesson();
    const LessonQuestion& q = lesson.question;
    const ImVec4 good = theme == Theme::dark ? ImVec4(0.45f, 0.85f, 0.45f, 1) : ImVec4(0.1f, 0.5f, 0.1f, 1);
    const ImVec4 bad = theme == Theme::dark ? ImVec4(0.95f, 0.55f, 0.35f, 1) : ImVec4(0.7f, 0.25f, 0.1f, 1);
    if (std::optional<size_t> chosen = player_.chosen())
        ImGui::TextColored(
            *chosen == q.answer ? good : bad, "%s",
            *chosen == q.answer ? "Your answer was right." : "Your answer was not the measured one.");
    ImGui::TextWrapped("Answer: %s", q.choices[q.answer].c_str());
    ImGui::Separator();
    if (player_.measuring()) {
        const auto [done, total] = player_.progress();
        ImGui::TextUnformatted("Measuring the runs on this machine (the live pipeline is paused)...");
        ImGui::ProgressBar(static_cast<float>(std::min(done, total)) / static_cast<float>(std::max(total, 1)),
                           ImVec2(-1, 0), fmt::format("{} of {} runs", std::min(done, total), total).c_str());
        return;
    }
    if (!player_.error().empty()) {
        ImGui::TextColored(bad, "The runs failed: %s", player_.error().c_str());
        return;
    }
    const std::optional<LessonOutcome> outcome = player_.outcome();
    if (!outcome) return;
    wrapped(outcome->answer);
    ImGui::Spacing();
    ImGui::TextColored(outcome->kept() ? good : bad, "%s %s",
                       outcome->kept() ? "Kept:" : "NOT kept:", lesson.promise.value("text", "").c_str());
    if (ImGui::TreeNode("checks", "the measured checks")) {
        for (const CheckResult& c : outcome->checks) ImGui::BulletText("%s", c.line.c_str());
        ImGui::TreePop();
    }
}

void LessonPanel::page(AppState& state, Theme theme, bool presentation) {
    const Lesson& lesson = *player_.lesson();
    ImGui::TextDisabled("%s", fmt::format("lesson {} of {}, page {} of {}", index_ + 1,
                                          builtin_lessons().size(), player_.page() + 1, player_.pages())
                                  .c_str());
    ImGui::SetWindowFontScale(presentation ? kSlideScale * 1.15f : 1.1f);
    wrapped(lesson.title);
    ImGui::SetWindowFontScale(presentation ? kSlideScale : 1.f);
    ImGui::Separator();
    switch (player_.page_kind()) {
        case LessonPlayer::Page::belief:
            ImGui::TextDisabled("A belief:");
            wrapped("\"" + lesson.belief + "\"");
            ImGui::Spacing();
            wrapped("Follow the steps, answer the question, then measure.");
            break;
        case LessonPlayer::Page::step:
            ImGui::TextDisabled(
                "%s", fmt::format("Step {} of {}", player_.step() + 1, lesson.steps.size()).c_str());
            wrapped(lesson.steps[static_cast<size_t>(player_.step())]);
            ImGui::Spacing();
            run_buttons(state);
            break;
        case LessonPlayer::Page::question: {
            ImGui::SetWindowFontScale((presentation ? kSlideScale : 1.f) * kQuestionScale);
            wrapped(lesson.question.text);
            ImGui::SetWindowFontScale(presentation ? kSlideScale : 1.f);
            ImGui::Spacing();
            for (size_t i = 0; i < lesson.question.choices.size(); ++i)
                if (radio_wrapped(i, fmt::format("{}. {}", i + 1, lesson.question.choices[i]),
                                  player_.chosen() == i))
                    player_.choose(i);
            ImGui::Spacing();
            if (ImGui::Button("Measure and reveal")) player_.next();
            break;
        }
        case LessonPlayer::Page::answer:
            answer(theme);
            ImGui::Spacing();
            run_buttons(state);
            break;
    }
    ImGui::SetWindowFontScale(1.f);
}

void LessonPanel::navigation() {
    ImGui::Separator();
    ImGui::BeginDisabled(player_.page() == 0);
    if (ImGui::Button("< Previous")) player_.previous();
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::BeginDisabled(player_.page() + 1 >= player_.pages());
    if (ImGui::Button("Next >")) player_.next();
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::TextDisabled("arrows turn pages, 1-9 answer");
}

void LessonPanel::draw(AppState& state, Theme theme, const Rect& rect, bool presentation) {
    ImGui::SetNextWindowPos(ImVec2(rect.x, rect.y));
    ImGui::SetNextWindowSize(ImVec2(rect.w, rect.h));
    const ImGuiWindowFlags flags = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize |
                                   ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings;
    if (ImGui::Begin("Lessons", nullptr, flags)) {
        if (!presentation) lesson_list(state);
        if (player_.lesson()) {
            page(state, theme, presentation);
            navigation();
        } else {
            ImGui::TextWrapped(
                "Each lesson starts from a belief people hold about pinned memory, workers, prefetching or "
                "overlap, asks the class a question, and then measures the answer on this machine.");
        }
    }
    ImGui::End();
    // The runs are measured with the cores to themselves: the live pipeline waits meanwhile.
    if (LiveSession* live = state.session()) {
        if (player_.measuring() && !paused_for_reveal_) live->set_paused(paused_for_reveal_ = true);
        if (!player_.measuring() && paused_for_reveal_) live->set_paused(paused_for_reveal_ = false);
    }
}

}  // namespace pinscope::gui
