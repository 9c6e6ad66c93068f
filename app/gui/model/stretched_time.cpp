#include "app/gui/model/stretched_time.h"

#include <cmath>

#include <fmt/format.h>

namespace pinscope::gui {

std::string stretched_duration(TimeNs on_screen, double slow_motion) {
    if (!(slow_motion > 1)) return format_duration(on_screen);
    const auto real = static_cast<TimeNs>(std::llround(static_cast<double>(on_screen) / slow_motion));
    return fmt::format("{} on screen, {} real ({:g}x slow motion)", format_duration(on_screen),
                       format_duration(real), slow_motion);
}

std::string slow_motion_mark(double slow_motion) {
    if (!(slow_motion > 1)) return {};
    return fmt::format("SLOW MOTION {:g}x: 1 ms real is drawn {:g} ms long", slow_motion, slow_motion);
}

}  // namespace pinscope::gui
