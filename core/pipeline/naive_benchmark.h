#pragma once
// naive_benchmark: the "pinned is 80x faster" benchmark as people publish it, run instead of the
// pipeline. Each variant runs in a fresh process (the device starts cold). The script first makes its
// tensor, pinned with pin_memory; pinning is the process's first CUDA call, so the context and a fresh
// cudaHostAlloc are paid there, before any timing. Then a stopwatch covers one x.to("cuda",
// non_blocking=...): the destination's cudaMalloc and the copy, which from pinned memory returns at once
// and from pageable memory once it is staged. No warm-up and no synchronisation: a pageable tensor's
// stopwatch holds the context's creation, a pinned one's a launch. The copy is waited for after the
// stopwatch, so the timeline shows it end.
//
// spawned_child: the tensor is made and pinned in the parent and handed to a child process made with
// spawn, which times the copy; the tensor arrives there unpinned, and the child makes its own context.
//
// On the simulated GPU the script runs on cold devices in this process (a fresh one for a child); on a
// real GPU, whose context this process made long ago, in a fresh pinscope process (naive_copy.h).
#include <cstdint>

#include "core/config/pipeline_config.h"
#include "core/device/device.h"
#include "core/trace/trace.h"

namespace pinscope {

// `device` is the session's (cold, on the simulated GPU); the calling thread records with `recorder` on
// `lane` (the train loop's), and every span carries `batch`.
void run_naive_benchmark(const PipelineConfig& config, Device& device, Trace& trace, Recorder& recorder,
                         LaneId lane, int64_t batch);

}  // namespace pinscope
