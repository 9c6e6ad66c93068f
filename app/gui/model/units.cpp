#include "app/gui/model/units.h"

#include <cmath>

#include <fmt/format.h>

namespace pinscope::gui {

std::string format_duration(TimeNs ns) {
    const double a = std::fabs(static_cast<double>(ns));
    if (a < 1e3) return fmt::format("{} ns", ns);
    if (a < 1e6) return fmt::format("{:.2f} us", static_cast<double>(ns) / 1e3);
    if (a < 1e9) return fmt::format("{:.2f} ms", static_cast<double>(ns) / 1e6);
    return fmt::format("{:.3f} s", static_cast<double>(ns) / 1e9);
}

std::string format_bytes(double bytes) {
    const double a = std::fabs(bytes);
    if (a < 1e3) return fmt::format("{:.0f} B", bytes);
    if (a < 1e6) return fmt::format("{:.1f} kB", bytes / 1e3);
    if (a < 1e9) return fmt::format("{:.1f} MB", bytes / 1e6);
    return fmt::format("{:.2f} GB", bytes / 1e9);
}

std::string format_rate(double bytes_per_second) {
    if (std::fabs(bytes_per_second) < 1e9) return fmt::format("{:.0f} MB/s", bytes_per_second / 1e6);
    return fmt::format("{:.1f} GB/s", bytes_per_second / 1e9);
}

std::string format_count(double count) {
    const std::string digits = fmt::format("{:.0f}", std::fabs(count));
    std::string grouped = count < 0 && digits != "0" ? "-" : "";
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) grouped += ',';
        grouped += digits[i];
    }
    return grouped;
}

TimeNs nice_step(TimeNs at_least) {
    TimeNs power = 1;
    while (power * 10 <= at_least && power < kNsPerS * 1000) power *= 10;
    for (TimeNs m : {1, 2, 5, 10})
        if (power * m >= at_least) return power * m;
    return power * 10;
}

}  // namespace pinscope::gui
