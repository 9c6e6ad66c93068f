#pragma once
// Slow motion (the `slow_motion` knob): every duration of a simulated run `factor` times longer, so a
// class can watch single batches crawl from fetch to D2H. Modelled durations (sample costs, kernels,
// copies) are simply scaled where they are modelled. Real host work (collating, the pin thread's copy,
// staging a pageable copy) runs at the machine's own speed, so it is stretched: after the work, the
// thread keeps its core busy for factor - 1 times as long. Spinning rather than sleeping keeps the
// cores as contended as at normal speed, so a run in slow motion is the same run, only slower.
#include <atomic>

#include "core/trace/clock.h"

namespace pinscope {

// Stretches the work done in its scope by `factor` (1: no stretch, and no clock read).
class StretchedWork {
  public:
    explicit StretchedWork(double factor, const std::atomic<bool>* stop = nullptr)
        : factor_(factor), stop_(stop), start_(factor > 1 ? now_ns() : 0) {}
    ~StretchedWork() {
        if (factor_ <= 1) return;
        const TimeNs now = now_ns();
        spin_until_ns(now + static_cast<TimeNs>(static_cast<double>(now - start_) * (factor_ - 1)), stop_);
    }
    StretchedWork(const StretchedWork&) = delete;
    StretchedWork& operator=(const StretchedWork&) = delete;

  private:
    double factor_;
    const std::atomic<bool>* stop_;
    TimeNs start_;
};

}  // namespace pinscope
