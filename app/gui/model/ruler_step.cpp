#include "app/gui/model/ruler_step.h"

namespace pinscope::gui {

TimeNs nice_step(TimeNs at_least) {
    TimeNs power = 1;
    while (power * 10 <= at_least && power < kNsPerS * 1000) power *= 10;
    for (TimeNs m : {1, 2, 5, 10})
        if (power * m >= at_least) return power * m;
    return power * 10;
}

}  // namespace pinscope::gui
