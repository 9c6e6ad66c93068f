#include "core/units/units.h"

#include <cmath>

#include <fmt/format.h>

namespace pinscope {

std::string format_duration(TimeNs ns) {
    const double a = std::fabs(static_cast<double>(ns));
    if (a < 1e3) return fmt::format("{} ns", ns);
    if (a < 1e6) return fmt::format("{:.2f} us", static_cast<double>(ns) / 1e3);
    if (a < 1e9) return fmt::format("{:.2f} ms", static_cast<double>(ns) / 1e6);
    return fmt::format("{:.3f} s", static_cast<double>(ns) / 1e9);
}

std::string format_bytes(double bytes) {
    constexpr double kKiB = 1024, kMiB = kKiB * 1024, kGiB = kMiB * 1024;
    const double a = std::fabs(bytes);
    if (a < kKiB) return fmt::format("{:.0f} B", bytes);
    if (a < kMiB) return fmt::format("{:.1f} KiB", bytes / kKiB);
    if (a < kGiB) return fmt::format("{:.1f} MiB", bytes / kMiB);
    return fmt::format("{:.2f} GiB", bytes / kGiB);
}

std::string format_rate(double bytes_per_second) {
    if (std::fabs(bytes_per_second) < 1e9) return fmt::format("{:.0f} MB/s", bytes_per_second / 1e6);
    return fmt::format("{:.1f} GB/s", bytes_per_second / 1e9);
}

std::string format_gbps(double gbps) {
    return format_rate(gbps * 1e9);
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

std::string format_short_count(double count) {
    const double a = std::fabs(count);
    if (a >= 1e6) return fmt::format("{:.2f}M", count / 1e6);
    if (a >= 1e4) return fmt::format("{:.1f}k", count / 1e3);
    return fmt::format("{:.0f}", count);
}

std::string format_share(double fraction) {
    const double percent = 100 * fraction;
    return std::fabs(percent) < 10 ? fmt::format("{:.1f}%", percent) : fmt::format("{:.0f}%", percent);
}

std::string link_peak_label(double h2d_peak_gbps) {
    // An imported trace does not say what its link can do: 0 is "not known", never a peak of 0.
    if (!(h2d_peak_gbps > 0)) return "link peak not known";
    return "pinned H2D peak " + format_gbps(h2d_peak_gbps);
}

namespace {

// The length of the UTF-8 sequence that starts at text[i], or 0 when it is not a whole, valid one.
size_t utf8_length(std::string_view text, size_t i) {
    const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char lead = byte(i);
    const size_t n = lead >= 0xF5 ? 0 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC2 ? 2 : 0;
    if (n == 0 || i + n > text.size()) return 0;
    for (size_t k = 1; k < n; ++k)
        if ((byte(i + k) & 0xC0) != 0x80) return 0;
    // C1 controls (U+0080..U+009F, e.g. the 8-bit CSI) are controls too.
    if (n == 2 && lead == 0xC2 && byte(i + 1) < 0xA0) return 0;
    return n;
}

}  // namespace

std::string printable(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size();) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        if (c >= 0x20 && c < 0x7F) {
            out += static_cast<char>(c);
            ++i;
        } else if (c == '\n') {
            out += "\\n", ++i;
        } else if (c == '\t') {
            out += "\\t", ++i;
        } else if (const size_t n = c >= 0x80 ? utf8_length(text, i) : 0) {
            out.append(text.substr(i, n));
            i += n;
        } else {
            out += fmt::format("\\x{:02x}", c);
            ++i;
        }
    }
    return out;
}

}  // namespace pinscope
