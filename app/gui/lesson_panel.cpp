#include "app/gui/lesson_panel.h"

#include <algorithm>

#include <fmt/format.h>
#include <imgui.h>

#include "app/gui/keys.h"
#include "app/gui/model/word_wrap.h"
#include "core/config/knobs.h"

namespace pinscope::gui {
namespace {

constexpr float kSlideScale = 1.35f;    // presentation: the page's text against the app's
constexpr float kQuestionScale = 1.6f;  // and the question's
// A page too long for the panel steps its type down by this factor a frame until it fits: the question
// first, down to the page's size, then all of it, to at most kSmallestFit (about the app's normal type);
// past that, the panel scrolls.
constexpr float kFitStep = 0.93f;
constexpr float kSmallestFit = 0.4f;
constexpr float kSlowMotions[] = {1, 10, 50, 100};

bool key(ImGuiKey key) {
    return ImGui::IsKeyPressed(ImGui::GetKeyIndex(key), false);
}

float text_width(std::string_view text) {
    return ImGui::CalcTextSize(text.data(), text.data() + text.size()).x;
}

}  // namespace

void LessonPanel::lines(const std::string& text, const ImVec4* colour) {
    const float width = std::max(ImGui::GetContentRegionAvail().x, 1.f);
    for (const std::string& line : wrap_at_spaces(text, width, text_width)) {
        if (text_width(line) > width + 0.5f) words_whole_ = false;
        if (colour)
            ImGui::TextColored(*colour, "%s", line.c_str());
        else
            ImGui::TextUnformatted(line.c_str());
    }
}

// A radio button whose label wraps at the panel's edge, its lines aligned after the button.
bool LessonPanel::radio_lines(size_t id, const std::string& label, bool active) {
    ImGui::PushID(static_cast<int>(id));
    const bool pressed = ImGui::RadioButton("##choice", active);
    ImGui::SameLine();
    ImGui::BeginGroup();
    lines(label);
    ImGui::EndGroup();
    ImGui::PopID();
    return pressed;
}

void LessonPanel::open(AppState& state, size_t index) {
    const std::vector<Lesson>& all = builtin_lessons();
    if (index >= all.size()) return;
    index_ = index;
    const PipelineConfig machine = state.editor().applied();
    player_.open(all[index], machine);
    shown_run_ = 0;
    view_seconds_ = all[index].view_seconds * machine.slow_motion;  // the same batches, stretched
    state.editor().edit([&](PipelineConfig& draft) { draft = player_.live_config(0, machine); });
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
        if (radio_lines(100 + i, lesson.runs[i].label, shown) && !shown) {
            shown_run_ = i;
            const PipelineConfig on_screen = state.editor().applied();
            state.editor().edit([&](PipelineConfig& draft) { draft = player_.live_config(i, on_screen); });
        }
    }
    pipeline_controls(state);
}

// What the Pipeline menu and the keys P and N do, and the Controls' slow motion, where a class sees
// them: presentation mode hides the menu's meaning and replaces the Controls.
void LessonPanel::pipeline_controls(AppState& state) {
    LiveSession* live = state.session();
    if (!live || player_.measuring()) return;
    if (ImGui::Button(live->paused() ? "Resume pipeline (P)" : "Pause pipeline (P)"))
        live->set_paused(!live->paused());
    ImGui::SameLine();
    ImGui::BeginDisabled(!live->paused());
    if (ImGui::Button("One batch (N)")) live->step();
    ImGui::EndDisabled();
    if (live->status().device.kind != "sim") return;  // slow motion stretches the simulated GPU only
    const double now = state.editor().applied().slow_motion;
    ImGui::TextDisabled("slow motion:");
    for (const float factor : kSlowMotions) {
        ImGui::SameLine();
        if (ImGui::RadioButton(fmt::format("{:.0f}x", factor).c_str(), now == factor) && now != factor)
            state.editor().edit([&](PipelineConfig& draft) { draft.slow_motion = factor; });
    }
}

void LessonPanel::answer(Theme theme) {
    const Lesson& lesson = *player_.lesson();
    const LessonQuestion& q = lesson.question;
    const ImVec4 good = theme == Theme::dark ? ImVec4(0.45f, 0.85f, 0.45f, 1) : ImVec4(0.1f, 0.5f, 0.1f, 1);
    const ImVec4 bad = theme == Theme::dark ? ImVec4(0.95f, 0.55f, 0.35f, 1) : ImVec4(0.7f, 0.25f, 0.1f, 1);
    if (std::optional<size_t> chosen = player_.chosen())
        lines(*chosen == q.answer ? "Your answer was right." : "Your answer was not the measured one.",
              *chosen == q.answer ? &good : &bad);
    lines("Answer: " + q.choices[q.answer]);
    ImGui::Separator();
    if (player_.measuring()) {
        const auto [done, total] = player_.progress();
        lines("Measuring the runs on this machine at real speed (the live pipeline is paused)...");
        ImGui::ProgressBar(static_cast<float>(std::min(done, total)) / static_cast<float>(std::max(total, 1)),
                           ImVec2(-1, 0), fmt::format("{} of {} runs", std::min(done, total), total).c_str());
        essentials_bottom_ = ImGui::GetCursorPosY();
        return;
    }
    if (!player_.error().empty()) {
        lines("The runs failed: " + player_.error(), &bad);
        essentials_bottom_ = ImGui::GetCursorPosY();
        return;
    }
    const std::optional<LessonOutcome> outcome = player_.outcome();
    if (!outcome) return;
    lines(outcome->answer);
    ImGui::Spacing();
    lines((outcome->kept() ? "Kept: " : "NOT kept: ") + lesson.promise.value("text", ""),
          outcome->kept() ? &good : &bad);
    essentials_bottom_ = ImGui::GetCursorPosY();
    // Beside the checks, not among the essentials a projector must fit: a promise missed on the first
    // runs is judged on each run's median of three (run_lesson).
    const bool medians = outcome->measurements > 1;
    const std::string checks_label =
        medians ? fmt::format("the measured checks (medians of {})", outcome->measurements)
                : std::string("the measured checks");
    if (ImGui::TreeNode("checks", "%s", checks_label.c_str())) {
        if (medians)
            ImGui::TextWrapped("%s",
                               fmt::format("The first runs missed the promise, so each run was measured {} "
                                           "times: the numbers above are the medians.",
                                           outcome->measurements)
                                   .c_str());
        for (const CheckResult& c : outcome->checks) ImGui::BulletText("%s", c.line.c_str());
        ImGui::TreePop();
    }
}

void LessonPanel::page(AppState& state, Theme theme, bool presentation) {
    const Lesson& lesson = *player_.lesson();
    ImGui::TextDisabled("%s", fmt::format("lesson {} of {}, page {} of {}", index_ + 1,
                                          builtin_lessons().size(), player_.page() + 1, player_.pages())
                                  .c_str());
    // fit_.scale: 1 is the question at kQuestionScale; 1 / kQuestionScale the question at the page's size.
    const float question_part = kQuestionScale * fit_.scale;
    const float slide = presentation ? kSlideScale * std::min(1.f, question_part) : 1.f;
    const float question = presentation ? slide * std::max(1.f, question_part) : kQuestionScale;
    ImGui::SetWindowFontScale(presentation ? slide * 1.15f : 1.1f);
    lines(lesson.title);
    ImGui::SetWindowFontScale(slide);
    ImGui::Separator();
    switch (player_.page_kind()) {
        case LessonPlayer::Page::belief:
            ImGui::TextDisabled("A belief:");
            lines("\"" + lesson.belief + "\"");
            ImGui::Spacing();
            lines("Follow the steps, answer the question, then measure.");
            essentials_bottom_ = ImGui::GetCursorPosY();
            break;
        case LessonPlayer::Page::step:
            ImGui::TextDisabled(
                "%s", fmt::format("Step {} of {}", player_.step() + 1, lesson.steps.size()).c_str());
            lines(lesson.steps[static_cast<size_t>(player_.step())]);
            essentials_bottom_ = ImGui::GetCursorPosY();
            ImGui::Spacing();
            run_buttons(state);
            break;
        case LessonPlayer::Page::question: {
            ImGui::SetWindowFontScale(question);
            lines(lesson.question.text);
            ImGui::SetWindowFontScale(slide);
            ImGui::Spacing();
            for (size_t i = 0; i < lesson.question.choices.size(); ++i)
                if (radio_lines(i, fmt::format("{}. {}", i + 1, lesson.question.choices[i]),
                                player_.chosen() == i))
                    player_.choose(i);
            ImGui::Spacing();
            if (ImGui::Button("Measure and reveal")) player_.next();
            essentials_bottom_ = ImGui::GetCursorPosY();
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
    constexpr const char* kHint = "arrows turn pages, 1-9 answer";
    ImGui::SameLine();
    if (ImGui::CalcTextSize(kHint).x <= ImGui::GetContentRegionAvail().x)
        ImGui::TextDisabled("%s", kHint);
    else
        ImGui::NewLine();  // a narrow panel keeps the buttons whole and drops the hint
}

// Called at the end of the panel's window: when the page drawn runs past the panel's bottom, the next
// frame draws it a step smaller. The scale starts again from the presentation size on a new page, a new
// panel size, or when the answer's numbers come in.
void LessonPanel::step_type_down(const Rect& rect, bool presentation) {
    const std::string drawn = fmt::format("{} {} {}x{} {} {} {}", index_, player_.page(), rect.w, rect.h,
                                          presentation, player_.measuring(), player_.finished());
    if (drawn != fit_for_) {
        fit_for_ = drawn;
        // Only the question page has a question to shrink first.
        fit_.scale = player_.page_kind() == LessonPlayer::Page::question ? 1.f : 1.f / kQuestionScale;
        return;  // this frame was drawn at the old scale: judge the next one
    }
    const float bottom = ImGui::GetCursorPosY();  // in the window's content, past the last item
    const float room = ImGui::GetWindowHeight() - ImGui::GetStyle().WindowPadding.y + 0.5f;
    fit_.fits = bottom <= room;
    fit_.essentials_fit = essentials_bottom_ <= room;
    fit_.words_whole = words_whole_;
    if ((!fit_.fits || !words_whole_) && presentation && fit_.scale > kSmallestFit)
        fit_.scale = std::max(kSmallestFit, fit_.scale * kFitStep);
}

void LessonPanel::draw(AppState& state, Theme theme, const Rect& rect, bool presentation) {
    ImGui::SetNextWindowPos(ImVec2(rect.x, rect.y));
    ImGui::SetNextWindowSize(ImVec2(rect.w, rect.h));
    const ImGuiWindowFlags flags = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize |
                                   ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings;
    if (ImGui::Begin("Lessons", nullptr, flags)) {
        if (!presentation) lesson_list(state);
        if (player_.lesson()) {
            words_whole_ = true;
            essentials_bottom_ = 0;
            page(state, theme, presentation);
            navigation();
            step_type_down(rect, presentation);
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
