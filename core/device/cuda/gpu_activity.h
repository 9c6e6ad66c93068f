#pragma once
// How the CUDA device learns when its copies and kernels ran on the GPU. Two ways, one interface:
// CuptiRecorder (CUPTI activity records, the batch id travelling by external correlation) and
// EventTimer (a pair of CUDA events around each operation, for when CUPTI cannot be used).
// CudaDevice calls before() and after() on the issuing thread around every copy and kernel launch.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

#include "core/trace/span.h"

namespace pinscope::cuda {

struct GpuOp {
    SpanKind kind = SpanKind::h2d;  // h2d, kernel or d2h
    int64_t batch = kNoBatch;
    uint64_t bytes = 0;
    HostMemory memory = HostMemory::none;  // as the caller's buffer says; CUPTI reports its own view
};

struct ActivityStats {
    uint64_t spans = 0;         // GPU spans recorded
    uint64_t dropped = 0;       // records CUPTI dropped (its buffers were full)
    uint64_t untimed = 0;       // records with start = end = 0
    uint64_t uncorrelated = 0;  // GPU records whose batch id never arrived
};

class GpuActivity {
  public:
    virtual ~GpuActivity() = default;

    // The lanes of stream `index` receive the spans of work issued on `stream`.
    virtual void add_stream(cudaStream_t stream, int index) = 0;
    virtual void before(const GpuOp& op, cudaStream_t stream) = 0;
    virtual void after(const GpuOp& op, cudaStream_t stream) = 0;
    // Records the spans of all work that has completed on the GPU. The caller synchronises first.
    virtual void flush() = 0;

    virtual std::string describe() const = 0;  // for the device's "why" line
    virtual ActivityStats stats() const = 0;
};

}  // namespace pinscope::cuda
