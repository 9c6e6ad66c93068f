#pragma once
// Numbers as people read them in tooltips, rulers and the metrics panel: "1.25 ms", "38.5 MB",
// "12.3 GB/s". Decimal units throughout, as GPU vendors quote bandwidth.
#include <cstdint>
#include <string>

#include "core/trace/clock.h"

namespace pinscope::gui {

std::string format_duration(TimeNs ns);
std::string format_bytes(double bytes);
std::string format_rate(double bytes_per_second);  // "12.3 GB/s"
std::string format_count(double count);            // "1,234,567"

// A "nice" step for ruler ticks: the smallest 1, 2 or 5 times a power of ten that is at least `at_least`.
TimeNs nice_step(TimeNs at_least);

}  // namespace pinscope::gui
