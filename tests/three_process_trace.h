#pragma once
// A trace pinscope did not record, built by hand: three processes (a main process with a train loop and
// a pin thread, two DataLoader worker processes), two devices of three streams each, named spans nested
// three deep in categories pinscope does not know, and flows. tests/open_trace_test.cpp saves and reopens
// it; make_open_trace writes it to a file for the app (its screenshot in docs/ is of this trace).
#include <string>
#include <vector>

#include "core/trace/lanes.h"
#include "core/trace/trace_store.h"

namespace pinscope::testing {

inline constexpr TimeNs kMs = kNsPerMs;

inline LaneInfo thread_lane(int64_t pid, int64_t tid, const char* process, const char* name, LaneRole role,
                            int key) {
    LaneInfo lane;
    lane.role = role;
    lane.name = name;
    lane.group = LaneGroup::host;
    lane.origin = {pid, tid};
    lane.group_name = process;
    lane.sort_key = key;
    return lane;
}

inline LaneInfo engine_lane(int device, int stream, LaneRole role) {
    LaneInfo lane;
    lane.role = role;
    lane.index = stream;
    lane.name = lane_name(role, stream);
    lane.group = LaneGroup::device;
    lane.origin = {device, stream};
    lane.group_name = "GPU " + std::to_string(device) + ": NVIDIA H100 80GB HBM3";
    lane.sort_key = lane_sort_key(role, stream);
    return lane;
}

// A main process (pid 4100) with a train loop and a pin thread, two worker processes, and two devices
// of three streams each; the train loop's steps hold operators that hold kernels' launches, three deep.
struct ThreeProcessTrace {
    TraceStore store{TraceLimits{SIZE_MAX, SIZE_MAX}};
    LaneRegistry registry;
    LaneId main, pin, worker_a, worker_b;
    std::vector<LaneId> kernels, copies;

    explicit ThreeProcessTrace(int steps = 4) {
        main = registry.lane(
            thread_lane(4100, 4100, "python train.py (pid 4100)", "MainThread", LaneRole::main, 0));
        pin = registry.lane(
            thread_lane(4100, 4170, "python train.py (pid 4100)", "pin_memory", LaneRole::pin, 1));
        worker_a = registry.lane(
            thread_lane(4201, 4201, "DataLoader worker 0 (pid 4201)", "worker 0", LaneRole::worker, 0));
        worker_b = registry.lane(
            thread_lane(4202, 4202, "DataLoader worker 1 (pid 4202)", "worker 1", LaneRole::worker, 0));
        for (int device : {0, 1})
            for (int stream : {7, 13, 21}) {
                kernels.push_back(registry.lane(engine_lane(device, stream, LaneRole::kernel)));
                copies.push_back(registry.lane(engine_lane(device, stream, LaneRole::h2d)));
            }
        store.set_lanes(registry.snapshot());
        const SpanKind annotation = store.intern_category("user_annotation");
        const SpanKind op = store.intern_category("cpu_op");
        const SpanKind runtime = store.intern_category("cuda_runtime");
        for (int step = 0; step < steps; ++step) {
            const TimeNs t = (10 + step * 10) * kMs;
            // The loader's side: a worker fetches the batch, the pin thread pins it, the loop waits for it.
            add({t - 8 * kMs, t - 3 * kMs, step, 0, step % 2 ? worker_b : worker_a, SpanKind::fetch},
                "sample.jpg");
            add({t - 3 * kMs, t - 2 * kMs, step, 1 << 20, pin, SpanKind::pin});
            add({t - 2 * kMs, t, step, 0, main, SpanKind::wait});
            // Three deep: a step, an operator in it, a launch in that.
            add({t, t + 9 * kMs, step, 0, main, annotation}, "ProfilerStep#" + std::to_string(step), 0);
            add({t + 1 * kMs, t + 6 * kMs, kNoBatch, 0, main, op}, "aten::conv2d", 1);
            add({t + 2 * kMs, t + 3 * kMs, kNoBatch, 0, main, runtime}, "cudaLaunchKernel", 2);
            const LaneId copy = copies[static_cast<size_t>(step % 6)],
                         kernel = kernels[static_cast<size_t>(step % 6)];
            Span h2d{t + 1 * kMs, t + 2 * kMs, step, 1 << 20, copy, SpanKind::h2d};
            h2d.memory = HostMemory::pinned;
            add(h2d);
            add({t + 3 * kMs, t + 8 * kMs, step, 0, kernel, SpanKind::kernel}, "implicit_convolve_sgemm");
            store.add(Flow{t + 2 * kMs, t + 3 * kMs, main, kernel});  // the launch to its kernel
        }
        store.add(CounterSample{0, 2, CounterKind::outstanding_batches});
    }

    void add(Span span, const std::string& name = {}, int depth = 0) {
        span.name = store.intern(name);
        span.depth = static_cast<uint32_t>(depth);
        store.add(span);
    }
};

}  // namespace pinscope::testing
