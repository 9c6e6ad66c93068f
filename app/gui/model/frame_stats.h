#pragma once
// Frame build times (from the start of a frame to the end of ImGui::Render(), the timeline included,
// GL drawing excluded) and their percentiles, for --frame-stats. The GUI thread's CPU time is the
// figure of merit: unlike wall time it does not count the pipeline's threads or other processes
// taking the core away (this machine has two).
#include <cstddef>
#include <vector>

#include "core/trace/clock.h"

namespace pinscope::gui {

class FrameStats {
  public:
    void add(TimeNs build_time) { times_.push_back(build_time); }
    size_t count() const { return times_.size(); }
    // Nearest rank, as the metrics use: the value at 1-based rank ceil(p/100 * n); 0 with no frames.
    TimeNs percentile(double percent) const;
    TimeNs max() const;

  private:
    std::vector<TimeNs> times_;
};

}  // namespace pinscope::gui
