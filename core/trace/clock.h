#pragma once
// The one time base of pinscope: std::chrono::steady_clock in nanoseconds. Host spans, the simulated
// GPU and CUPTI (through its timestamp callback) all stamp with now_ns(), so every lane shares one axis.
#include <chrono>
#include <cstdint>

namespace pinscope {

using TimeNs = int64_t;

inline TimeNs now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

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
