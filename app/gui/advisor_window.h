#pragma once
// The Advisor window: the advisor (core/analysis/advisor.h) over what is shown, the live run's last
// seconds or a capture's recorded window. A verdict, then findings most costly first, each with its
// evidence (a click shows those spans on the timeline), what it costs, and a fix that one click applies
// to the running pipeline.
#include <optional>
#include <string>

#include "app/gui/model/app_state.h"
#include "app/gui/model/span_palette.h"
#include "app/gui/model/timeline_viewport.h"
#include "core/analysis/advisor.h"

namespace pinscope::gui {

class AdvisorWindow {
  public:
    void open() { open_ = true, stale_ = true; }
    bool is_open() const { return open_; }
    void draw(AppState& state, Theme theme, TimelineViewport& viewport);

  private:
    void advise(const AppState& state);
    void finding(AppState& state, const Finding& f, size_t index, TimelineViewport& viewport);

    bool open_ = false;
    bool stale_ = true;      // advise again at the next frame
    TimeNs advised_at_ = 0;  // when (wall clock): a live run's advice is renewed every few seconds
    std::optional<Advice> advice_;
    std::string refused_;  // why there is no advice, when it is not for want of spans
    Interval window_;
    PipelineConfig config_;  // the config the advice is about
};

}  // namespace pinscope::gui
