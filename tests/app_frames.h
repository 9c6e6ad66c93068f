#pragma once
// The app's frames without a window, for tests of the GUI's model: each frame ticks AppState and ends, as
// the render loop does, about 60 times a second of wall time.
#include <chrono>
#include <thread>

#include "app/gui/model/app_state.h"
#include "core/trace/clock.h"

namespace pinscope::testing {

constexpr TimeNs kFrame = 16 * kNsPerMs;

// Frames as the app runs them, for `duration` of wall time.
inline void run_frames(gui::AppState& app, TimeNs duration) {
    const TimeNs end = now_ns() + duration;
    while (now_ns() < end) {
        app.tick();
        app.end_frame();
        std::this_thread::sleep_for(std::chrono::nanoseconds(kFrame));
    }
}

}  // namespace pinscope::testing
