#pragma once
// Which stretch of time the timeline shows, and how the user moves it: follow live (the right edge
// stays at the newest data), pause, wheel zoom about the cursor, drag to pan, fit, zoom to a selected
// range. Times are int64 nanoseconds; pixels are computed in double relative to the view start and
// clamped before they become floats (ImVec2), so a view hours from the clock's origin stays exact.
#include <optional>

#include "core/analysis/intervals.h"

namespace pinscope::gui {

// Time <-> pixel for one frame: x is in pixels from the left edge of the lanes.
struct PixelMapping {
    Interval range;
    double width_px = 1;

    double px_per_ns() const { return width_px / static_cast<double>(range.length()); }
    double x_of(TimeNs t) const { return static_cast<double>(t - range.start) * px_per_ns(); }
    TimeNs time_at(double x) const { return range.start + static_cast<TimeNs>(x / px_per_ns()); }
    TimeNs ns_of_px(double px) const { return static_cast<TimeNs>(px / px_per_ns()); }
    // A float that a draw list can take: far-off-screen coordinates are pulled in to just outside the
    // visible width, where float still has sub-pixel precision.
    float clamp_x(double x) const;
};

class TimelineViewport {
  public:
    static constexpr TimeNs kMinLength = 2 * kNsPerUs;  // closer than this, nothing more to see
    static constexpr TimeNs kMaxLength = 3600 * kNsPerS;
    static constexpr TimeNs kDefaultLength = 2 * kNsPerS;  // a few dozen batches of a default run

    Interval range() const { return range_; }
    bool following() const { return following_; }
    void set_following(bool following) { following_ = following; }
    void toggle_following() { following_ = !following_; }

    // Once per frame with the newest time in the trace: a following view slides its right edge there.
    void update(TimeNs latest);
    // Wheel zoom: factor < 1 zooms in. `anchor` in [0, 1] is where the cursor is across the width; the
    // time under it stays put (a following view keeps its right edge on the newest data instead).
    void zoom(double factor, double anchor);
    // Drag: moves the view by `fraction` of its width (positive: to earlier times). Stops following.
    void pan(double fraction);
    // Keeps the right edge, shows `length` (bounded) before it.
    void set_length(TimeNs length) { set_length(length, range_.end, 1.0); }
    // Shows exactly `range` (fit, zoom to selection). Stops following.
    void show(Interval range);

    // A range picked by dragging; the views summarise it (busy fraction per lane, overlap).
    const std::optional<Interval>& selection() const { return selection_; }
    void select(TimeNs a, TimeNs b);
    void clear_selection() { selection_.reset(); }

  private:
    void set_length(TimeNs length, TimeNs anchor_time, double anchor);

    Interval range_{0, kDefaultLength};
    bool following_ = true;
    std::optional<Interval> selection_;
};

}  // namespace pinscope::gui
