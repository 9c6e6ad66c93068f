#pragma once
// A thread that runs `tick` every `period` until it is destroyed: the shape of every background drain
// in pinscope (the trace collector, CUPTI's flusher, the CUDA-event poller). run_now() asks for a tick
// at once and returns when one that started after the call has finished.
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

#include "core/trace/clock.h"

namespace pinscope {

class PeriodicThread {
  public:
    PeriodicThread(TimeNs period, std::function<void()> tick);
    ~PeriodicThread();  // stops it; a tick in progress finishes first
    PeriodicThread(const PeriodicThread&) = delete;
    PeriodicThread& operator=(const PeriodicThread&) = delete;

    void run_now();
    // Asks for a tick as soon as the thread is free, without waiting for it.
    void request();

  private:
    void loop();

    const TimeNs period_;
    const std::function<void()> tick_;
    std::mutex mutex_;
    std::condition_variable wake_, finished_;
    bool stopping_ = false;
    uint64_t requested_ = 0, answered_ = 0;
    std::thread thread_;  // last: it starts once everything above exists
};

}  // namespace pinscope
