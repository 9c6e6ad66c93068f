#pragma once
// Ruler ticks: a step people can read.
#include "core/trace/clock.h"

namespace pinscope::gui {

// The smallest 1, 2 or 5 times a power of ten that is at least `at_least`.
TimeNs nice_step(TimeNs at_least);

}  // namespace pinscope::gui
