#pragma once
// The Lessons panel: a lesson page by page (the belief, the steps, the question with its choices, the
// answer with the measured numbers), with buttons that show each of the lesson's runs live. It takes the
// Controls panel's place; in presentation mode it is drawn with large type and the question big.
#include "app/gui/model/app_state.h"
#include "app/gui/model/layout.h"
#include "app/gui/model/lesson_player.h"
#include "app/gui/model/span_palette.h"

namespace pinscope::gui {

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

  private:
    void lesson_list(AppState& state);
    void page(AppState& state, Theme theme, bool presentation);
    void run_buttons(AppState& state);
    void answer(Theme theme);
    void navigation();

    LessonPlayer player_;
    size_t index_ = 0;
    size_t shown_run_ = 0;
    double view_seconds_ = 0;
    bool paused_for_reveal_ = false;
};

}  // namespace pinscope::gui
