#pragma once
// Two runs side by side: the numbers that say whether the data path got better (throughput, copy
// bandwidth, overlap, how busy the GPU was and why it idled), each with its difference stated the way
// people say it: "2.41x" or "-12%" for rates, "+35 pts" for shares. `pinscope diff` prints these rows
// and the app's compare view shows them.
#include <string>
#include <vector>

#include "core/analysis/metrics.h"

namespace pinscope {

struct MetricComparison {
    std::string name;        // "samples/s", "H2D while copying", ...
    std::string short_name;  // as the app's metric tiles title it: "H2D copying", "copy busy", ...
    enum class Unit { rate, gbps, share, micros } unit = Unit::rate;
    double a = 0, b = 0;
    std::string a_text, b_text;  // formatted as everywhere else (format_gbps, format_share, ...)
    std::string change;          // B against A: "2.41x", "+12%", "-3 pts", "same"
    bool detail = false;         // a part of the row before it (a cause of GPU idle time)
};

std::vector<MetricComparison> compare_metrics(const Metrics& a, const Metrics& b);

// How B differs from A for one number, as compare_metrics states it.
std::string stated_change(MetricComparison::Unit unit, double a, double b);

}  // namespace pinscope
