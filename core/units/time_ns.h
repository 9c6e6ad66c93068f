#pragma once
// Durations and instants in nanoseconds, the one time unit of pinscope. The clock that stamps them
// (now_ns) is core/trace/clock.h; this file is only the unit, so code that prints or converts a time
// (core/units, the config) needs nothing from the trace.
#include <cstdint>

namespace pinscope {

using TimeNs = int64_t;

constexpr TimeNs kNsPerUs = 1'000;
constexpr TimeNs kNsPerMs = 1'000'000;
constexpr TimeNs kNsPerS = 1'000'000'000;

inline double ns_to_s(TimeNs ns) {
    return static_cast<double>(ns) * 1e-9;
}
inline TimeNs us_to_ns(double us) {
    return static_cast<TimeNs>(us * 1e3);
}

}  // namespace pinscope
