#pragma once
// The lane of the thread that runs now (a worker's, the pin thread's, the train loop's), for work the
// thread does on behalf of a recorder that is not its own: a thread held because the simulated GPU's
// recorder was full is drawn on its own lane, not on the GPU lane it was recording for.
#include "core/trace/span.h"

namespace pinscope {

inline LaneId& this_thread_lane() {
    thread_local LaneId lane = kNoLane;
    return lane;
}

}  // namespace pinscope
