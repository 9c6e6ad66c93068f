#pragma once
// A relative tolerance, and nothing more. doctest's Approx(v).epsilon(e) allows e * (1 + |v|): on seconds
// (a copy of 1 ms) that is 40 ms at e = 0.04, and a check of a copy's time could not fail.
#include <doctest/doctest.h>

namespace pinscope::testing {

inline doctest::Approx within(double value, double fraction) {
    return doctest::Approx(value).epsilon(fraction).scale(0);
}

}  // namespace pinscope::testing
