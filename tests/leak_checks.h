#pragma once
// "Nothing leaked", said once: every buffer, pinned byte, stream and event back to the device, and every
// pipeline thread joined.
#include <doctest/doctest.h>

#include "core/device/device.h"
#include "core/pipeline/pipeline_thread.h"

namespace pinscope::testing {

inline void check_nothing_held(const DeviceResources& r) {
    CHECK(r.host_buffers == 0);
    CHECK(r.pinned_bytes == 0);
    CHECK(r.pageable_bytes == 0);
    CHECK(r.device_buffers == 0);
    CHECK(r.device_bytes == 0);
    CHECK(r.streams == 0);
    CHECK(r.events == 0);
}

// Counts the pipeline's threads when made; threads_back() says whether every one since has been joined.
class ThreadCount {
  public:
    ThreadCount() : before_(live_pipeline_threads()) {}
    int started_since() const { return live_pipeline_threads() - before_; }
    bool threads_back() const { return live_pipeline_threads() == before_; }

  private:
    int before_;
};

}  // namespace pinscope::testing
