#pragma once
// How many cores' worth of this machine's CPU goes to anything but this process's pipeline threads: the
// app's own drawing, the display server, other programs. The predictor's host rates are measured with the
// pipeline stopped and nothing drawn (host_rates.h); a live pipeline in the app shares the cores with the
// app's frames, which on this project's 2-core virtual machine (software OpenGL) took 1.0 to 1.7 of the 2,
// and the preview predicts with what that leaves (app/gui/model/prediction_preview.h). The simulated GPU's
// thread and the span collector are no PipelineThreads: they count among the others (the app's threads
// other than the pipeline's took 10% of a core there, the GUI thread's own frames included).
#include <optional>
#include <string_view>

#include "core/trace/clock.h"

namespace pinscope {

// The busy CPU time of all cores (user, nice, system, irq, softirq; not steal, which the host rates'
// available cores already count) in the first line of /proc/stat's text, whose ticks are
// `ticks_per_s` a second. Empty for text that is not that.
std::optional<TimeNs> busy_cpu_ns_in_proc_stat(std::string_view text, long ticks_per_s);
// The same, read from this machine's /proc/stat; empty where it cannot be read.
std::optional<TimeNs> machine_busy_cpu_ns();

class OtherCpuLoad {
  public:
    static constexpr TimeNs kWindow = 2 * kNsPerS;  // frames differ; a window of many smooths them

    struct Reading {
        TimeNs wall_ns = 0, machine_busy_ns = 0, pipeline_ns = 0;
    };
    // Cores' worth of the machine's busy time that was not the pipeline's between two readings.
    static double cores_between(const Reading& from, const Reading& to);

    // Reads the machine and the pipeline threads (pipeline_thread.h) at most once a kWindow; the load is
    // the last window's.
    void sample();
    // The same with a reading made elsewhere (tests).
    void add(const Reading& reading);
    // Forgets the last reading, keeping the load: the next window starts with the next sample().
    void restart() { last_.reset(); }
    // Empty until two readings a window apart.
    std::optional<double> cores() const { return cores_; }

  private:
    std::optional<Reading> last_;
    std::optional<double> cores_;
};

}  // namespace pinscope
