// run_naive_copy_here(): the naive script, in a process that has not touched CUDA, each step timed on
// the steady clock that the parent's trace uses too.
#include <cuda_runtime_api.h>

#include <cstdlib>
#include <cstring>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/device/cuda/cuda_check.h"
#include "core/device/device.h"
#include "core/device/naive_copy.h"
#include "core/trace/clock.h"
#include "core/units/units.h"

namespace pinscope {
namespace {

using cuda::check;

class Steps {
  public:
    // Runs `step` and notes it as a span of `kind` named `what`.
    template <class Step>
    void timed(SpanKind kind, std::string what, Step&& step) {
        const TimeNs start = now_ns();
        step();
        add(kind, std::move(what), start, now_ns());
    }
    void add(SpanKind kind, std::string what, TimeNs start, TimeNs end) {
        steps_.push_back(
            {{"what", std::move(what)}, {"kind", span_kind_name(kind)}, {"start", start}, {"end", end}});
    }
    nlohmann::json json() const { return {{"steps", steps_}}; }

  private:
    nlohmann::json steps_ = nlohmann::json::array();
};

}  // namespace

nlohmann::json run_naive_copy_here(const NaiveCopyRequest& r) {
    Steps steps;
    const std::string size = format_bytes(static_cast<double>(r.bytes));
    auto make_context = [&] {
        steps.timed(SpanKind::startup, "CUDA context: the process's first CUDA call", [&] {
            check(cudaSetDevice(r.gpu), "cudaSetDevice");
            check(cudaFree(nullptr), "cudaFree");
        });
    };
    // The script's tensor: pinning it is the process's first CUDA call.
    void* host = nullptr;
    if (r.pinned) {
        make_context();
        steps.timed(SpanKind::startup, fmt::format("cudaHostAlloc {}: a fresh pinned allocation", size),
                    [&] { check(cudaHostAlloc(&host, r.bytes, cudaHostAllocDefault), "cudaHostAlloc"); });
    } else {
        host = std::aligned_alloc(4096, (r.bytes + 4095) / 4096 * 4096);
        if (!host) throw DeviceError("cannot allocate the naive benchmark's tensor");
    }
    steps.timed(SpanKind::fetch, "torch.randn", [&] { std::memset(host, 1, r.bytes); });

    // The stopwatch: one x.to("cuda", non_blocking=...), nothing before it, no synchronisation.
    void* device = nullptr;
    const TimeNs started = now_ns();
    if (!r.pinned) make_context();
    steps.timed(SpanKind::startup, fmt::format("cudaMalloc {}", size),
                [&] { check(cudaMalloc(&device, r.bytes), "cudaMalloc"); });
    const TimeNs copy_start = now_ns();
    if (r.non_blocking || !r.pinned)
        check(cudaMemcpyAsync(device, host, r.bytes, cudaMemcpyHostToDevice, nullptr), "cudaMemcpyAsync");
    else
        check(cudaMemcpy(device, host, r.bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
    const TimeNs stopped = now_ns();
    // A call that held the thread shows on its lane: staging from pageable memory, waiting for a copy.
    if (!r.pinned)
        steps.add(SpanKind::stage, "pageable copy, staged by the driver", copy_start, stopped);
    else if (!r.non_blocking)
        steps.add(SpanKind::sync, "blocking copy", copy_start, stopped);
    steps.add(SpanKind::stopwatch, fmt::format("x.to(\"cuda\"): {}", format_duration(stopped - started)),
              started, stopped);
    steps.timed(SpanKind::sync, "torch.cuda.synchronize(), after the stopwatch",
                [&] { check(cudaStreamSynchronize(nullptr), "cudaStreamSynchronize"); });
    // The copy on the engine: from its call to the end of the synchronisation, its launch included.
    steps.add(SpanKind::h2d, "copy", copy_start, now_ns());
    cudaFree(device);
    if (r.pinned)
        cudaFreeHost(host);
    else
        std::free(host);
    return steps.json();
}

}  // namespace pinscope
