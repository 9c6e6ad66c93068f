#pragma once
// A batch as the loader hands it to the train loop: its buffer (pinned or pageable) on loan from a
// pool, or the failure its worker met while building it.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "core/pipeline/host_buffer_pool.h"
#include "core/trace/span.h"

namespace pinscope {

struct WorkerFailure {
    int worker = 0;
    std::string type;  // Python-style exception name, e.g. "ValueError"
    std::string message;
};

struct LoadedBatch {
    int64_t index = 0;      // position in this loader's order: 0, 1, 2, ...
    int64_t id = kNoBatch;  // the batch id on every span, unique within a session
    int worker = -1;        // -1: built inline by the train loop (num_workers=0)
    BufferLease buffer;
    size_t bytes = 0;
    std::optional<WorkerFailure> failure;
};

// A worker's exception, re-raised in the train loop with PyTorch's wording.
class WorkerError : public std::runtime_error {
  public:
    explicit WorkerError(const WorkerFailure& failure);
    const WorkerFailure& failure() const { return failure_; }

  private:
    WorkerFailure failure_;
};

// Python's name for a C++ exception a dataset may throw: std::out_of_range is an IndexError, ...
std::string python_exception_name(const std::exception& error);

}  // namespace pinscope
