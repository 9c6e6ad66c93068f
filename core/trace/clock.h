#pragma once
// The one time base of pinscope: std::chrono::steady_clock in nanoseconds. Host spans, the simulated
// GPU and CUPTI (through its timestamp callback) all stamp with now_ns(), so every lane shares one axis.
#include <chrono>

#include "core/units/time_ns.h"

namespace pinscope {

inline TimeNs now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

}  // namespace pinscope
