#include "app/gui/model/timeline_viewport.h"

#include <algorithm>
#include <cmath>

namespace pinscope::gui {

float PixelMapping::clamp_x(double x) const {
    constexpr double kMargin = 64;  // enough that clipped outlines never show their ends
    return static_cast<float>(std::clamp(x, -kMargin, width_px + kMargin));
}

void TimelineViewport::update(TimeNs latest) {
    if (!following_ || latest <= 0) return;
    const TimeNs length = range_.length();
    range_ = {latest - length, latest};
}

void TimelineViewport::set_length(TimeNs length, TimeNs anchor_time, double anchor) {
    length = std::clamp(length, kMinLength, kMaxLength);
    const TimeNs start =
        anchor_time - static_cast<TimeNs>(std::llround(anchor * static_cast<double>(length)));
    range_ = {start, start + length};
}

void TimelineViewport::zoom(double factor, double anchor) {
    if (!(factor > 0) || !std::isfinite(factor)) return;
    anchor = following_ ? 1.0 : std::clamp(anchor, 0.0, 1.0);
    const TimeNs anchor_time =
        range_.start + static_cast<TimeNs>(std::llround(anchor * static_cast<double>(range_.length())));
    set_length(static_cast<TimeNs>(std::llround(static_cast<double>(range_.length()) * factor)), anchor_time,
               anchor);
}

void TimelineViewport::pan(double fraction) {
    if (!std::isfinite(fraction)) return;
    following_ = false;
    const TimeNs shift = static_cast<TimeNs>(std::llround(fraction * static_cast<double>(range_.length())));
    range_ = {range_.start - shift, range_.end - shift};
}

void TimelineViewport::show(Interval range) {
    following_ = false;
    if (range.end < range.start) std::swap(range.start, range.end);
    const TimeNs middle = range.start + range.length() / 2;
    set_length(range.length(), middle, 0.5);
}

void TimelineViewport::select(TimeNs a, TimeNs b) {
    if (a == b) return clear_selection();
    selection_ = Interval{std::min(a, b), std::max(a, b)};
}

}  // namespace pinscope::gui
