#pragma once
// Start-up work as the trace shows it: the CUDA context, a fresh pinned or device allocation. The
// driver does it inside the calling thread's call, so it is a `startup` span on that thread's lane (the
// train loop's, the pin thread's, a worker's), named for what it was. Both devices record through this:
// the simulated GPU what it models on a cold start, the CUDA device what it timed.
#include <memory>
#include <mutex>
#include <string_view>

#include "core/trace/trace.h"

namespace pinscope {

class StartupSpans {
  public:
    explicit StartupSpans(Trace& trace) : trace_(trace), recorder_(trace.make_recorder()) {}

    // Any thread; a thread with no lane of its own (a test's, the app's) draws on the train loop's.
    void record(std::string_view what, TimeNs start, TimeNs end);

  private:
    Trace& trace_;
    std::mutex mutex_;  // the recorder takes one producer at a time; start-up work is rare
    std::shared_ptr<Recorder> recorder_;
};

}  // namespace pinscope
