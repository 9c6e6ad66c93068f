#include "core/pipeline/other_cpu_load.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <string>

#include "core/pipeline/pipeline_thread.h"

namespace pinscope {

std::optional<TimeNs> busy_cpu_ns_in_proc_stat(std::string_view text, long ticks_per_s) {
    // "cpu  user nice system idle iowait irq softirq steal ...": all cores together.
    constexpr std::string_view kAllCores = "cpu ";
    if (ticks_per_s <= 0 || !text.starts_with(kAllCores)) return std::nullopt;
    text.remove_prefix(kAllCores.size());
    long long fields[7]{};
    for (long long& field : fields) {
        while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), field);
        if (error != std::errc() || field < 0) return std::nullopt;
        text.remove_prefix(static_cast<size_t>(end - text.data()));
    }
    const long long busy_ticks = fields[0] + fields[1] + fields[2] + fields[5] + fields[6];
    return static_cast<TimeNs>(static_cast<double>(busy_ticks) * static_cast<double>(kNsPerS) /
                               static_cast<double>(ticks_per_s));
}

std::optional<TimeNs> machine_busy_cpu_ns() {
    std::ifstream stat("/proc/stat");
    std::string first;
    if (!std::getline(stat, first)) return std::nullopt;
    return busy_cpu_ns_in_proc_stat(first, sysconf(_SC_CLK_TCK));
}

double OtherCpuLoad::cores_between(const Reading& from, const Reading& to) {
    const TimeNs wall = to.wall_ns - from.wall_ns;
    if (wall <= 0) return 0;
    const TimeNs others = (to.machine_busy_ns - from.machine_busy_ns) - (to.pipeline_ns - from.pipeline_ns);
    return std::max(0.0, static_cast<double>(others) / static_cast<double>(wall));
}

void OtherCpuLoad::sample() {
    const TimeNs now = now_ns();
    if (last_ && now - last_->wall_ns < kWindow) return;
    const std::optional<TimeNs> busy = machine_busy_cpu_ns();
    if (!busy) return;
    add({.wall_ns = now, .machine_busy_ns = *busy, .pipeline_ns = pipeline_threads_cpu_ns()});
}

void OtherCpuLoad::add(const Reading& reading) {
    if (last_) cores_ = cores_between(*last_, reading);
    last_ = reading;
}

}  // namespace pinscope
