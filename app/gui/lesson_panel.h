#pragma once
// The Lessons panel: a lesson page by page (the belief, the steps, the question with its choices, the
// answer with the measured numbers), with buttons that show each of the lesson's runs live and the
// teacher's controls of the live pipeline (pause, one batch, slow motion). It takes the Controls panel's
// place; in presentation mode it is drawn with large type, stepped down until the page fits the panel.
#include <string>

#include <imgui.h>

#include "app/gui/model/app_state.h"
#include "app/gui/model/layout.h"
#include "app/gui/model/lesson_player.h"
#include "app/gui/model/span_palette.h"

namespace pinscope::gui {

// How the last page drawn fitted the panel (the layout test reads it).
struct LessonPageFit {
    bool fits = true;            // everything, navigation included, inside the panel without scrolling
    bool essentials_fit = true;  // the page's text, the question's choices and reveal button, the answer
                                 // and its promise line: inside the panel without scrolling
    bool words_whole = true;     // no word wider than its line
    float scale = 1;  // the type's step down: 1 the question at full size, 1/1.6 at the page's size
};

class LessonPanel {
  public:
    // Draws in `rect`. `presentation`: large type, no lesson list, the page as a slide.
    void draw(AppState& state, Theme theme, const Rect& rect, bool presentation);
    LessonPlayer& player() { return player_; }
    // Opens lesson `index` of builtin_lessons() and shows its first run live.
    void open(AppState& state, size_t index);
    // The zoom the open lesson asks for, once after it was opened; 0 otherwise.
    double take_view_seconds();
    // Keys of presentation mode: arrows and PageUp/PageDown turn pages, 1 to 9 choose an answer.
    void keys();
    const LessonPageFit& fit() const { return fit_; }

  private:
    void lesson_list(AppState& state);
    void page(AppState& state, Theme theme, bool presentation);
    void run_buttons(AppState& state);
    void pipeline_controls(AppState& state);
    void answer(Theme theme);
    void navigation();
    // `text` in lines broken at spaces, as wide as the panel; in `colour` when given.
    void lines(const std::string& text, const ImVec4* colour = nullptr);
    bool radio_lines(size_t id, const std::string& label, bool active);
    void step_type_down(const Rect& rect, bool presentation);

    LessonPlayer player_;
    size_t index_ = 0;
    size_t shown_run_ = 0;
    double view_seconds_ = 0;
    bool paused_for_reveal_ = false;
    LessonPageFit fit_;
    std::string fit_for_;  // what fit_.scale was found for: the lesson, page, panel size and answer state
    bool words_whole_ = true;
    float essentials_bottom_ = 0;  // where the page's essentials end, in the window's content
};

}  // namespace pinscope::gui
