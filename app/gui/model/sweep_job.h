#pragma once
// A sweep run from the app: the SweepRunner on a thread of its own, so frames keep coming while it
// measures. The GUI thread reads its progress each frame and takes the outcome once it has finished; it
// never waits on the sweep (stop() returns at once, the destructor joins).
#include <atomic>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "core/lab/sweep.h"

namespace pinscope::gui {

class SweepJob {
  public:
    struct Progress {
        size_t done = 0, total = 0;
        size_t confirm_done = 0, confirm_total = 0;  // the leading configs' runs again, after the grid
        std::string current;  // "num_workers=2 prefetch_factor=3 pin_memory=true"; empty once done
        std::optional<double> predicted_samples_per_s;
        double eta_seconds = 0;
    };

    // Starts at once.
    SweepJob(SweepGrid grid, double seconds_each, SamplesPredictor predictor = {});
    ~SweepJob();
    SweepJob(const SweepJob&) = delete;
    SweepJob& operator=(const SweepJob&) = delete;

    Progress progress() const;
    bool finished() const { return finished_.load(std::memory_order_acquire); }
    // The outcome once finished() (the rows not reached say "stopped" after stop()); nullptr before.
    const SweepOutcome* outcome() const { return finished() ? &outcome_ : nullptr; }
    void stop() { runner_.stop(); }

  private:
    SweepRunner runner_;
    mutable std::mutex mutex_;
    Progress progress_;
    SweepOutcome outcome_;  // written by the thread before finished_, read after it
    std::atomic<bool> finished_{false};
    std::thread thread_;  // last: it starts once everything it uses is made
};

}  // namespace pinscope::gui
