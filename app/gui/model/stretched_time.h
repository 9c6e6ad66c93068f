#pragma once
// Slow motion stretches every duration of a simulated run (the slow_motion knob): the timeline shows the
// stretched time, and a class must not read a 1 ms kernel drawn 50 ms long as a 50 ms kernel. These
// say both.
#include <string>

#include "core/units/units.h"

namespace pinscope::gui {

// "100.00 ms on screen, 2.00 ms real (50x slow motion)"; without slow motion just "2.00 ms".
std::string stretched_duration(TimeNs on_screen, double slow_motion);

// The timeline's mark while time is stretched: "SLOW MOTION 50x: 1 ms real is drawn 50 ms long";
// empty at real speed.
std::string slow_motion_mark(double slow_motion);

}  // namespace pinscope::gui
