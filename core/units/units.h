#pragma once
// Numbers as people read them, the same in the command line, the app and the exports: memory in binary
// units ("36.8 MiB", as the sizes of buffers and pinned pools are), bandwidth in decimal GB/s (as
// NVIDIA's tools and the calibration files print it), times with a unit that fits, shares as percent.
#include <cstdint>
#include <string>
#include <string_view>

#include "core/units/time_ns.h"

namespace pinscope {

std::string format_bytes(double bytes);            // "512 B", "4.0 KiB", "36.8 MiB", "1.25 GiB"
std::string format_rate(double bytes_per_second);  // "850 MB/s", "53.4 GB/s"
std::string format_gbps(double gbps);              // format_rate of gbps * 1e9
std::string format_duration(TimeNs ns);            // "850 ns", "12.50 us", "3.20 ms", "1.250 s"
std::string format_count(double count);            // "1,234,567"
std::string format_short_count(double count);      // "950", "15.1k", "1.23M": a rate where room is short
std::string format_share(double fraction);         // "17%", or "1.7%" below 10%

// What a device's h2d_peak_gbps is, everywhere it is shown: "pinned H2D peak 53.4 GB/s".
std::string link_peak_label(double h2d_peak_gbps);

// Text from a file (a device's name in a capture, a lesson's words) as it may be shown on a terminal:
// control characters, which could move the cursor, recolour or clear the screen, written out as \x1b,
// \n, \t; bytes that are not UTF-8 as \xff. Printable text, UTF-8 included, is left as it is.
std::string printable(std::string_view text);

}  // namespace pinscope
