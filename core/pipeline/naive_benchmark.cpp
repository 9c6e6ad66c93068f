#include "core/pipeline/naive_benchmark.h"

#include <cstring>
#include <optional>
#include <thread>

#include "core/device/device_factory.h"
#include "core/device/naive_copy.h"
#include "core/trace/thread_lane.h"

namespace pinscope {
namespace {

// The stopwatch's lane sits above the train loop, whose work it timed; a spawned child's below it.
LaneId named_lane(Trace& trace, int index, const char* name, int sort_key) {
    LaneInfo wanted = own_lane(LaneRole::other, index);
    wanted.name = name;
    wanted.sort_key = sort_key;
    return trace.lanes().lane(wanted);
}

LaneId stopwatch_lane(Trace& trace) {
    return named_lane(trace, 0, "stopwatch", -1);
}

LaneId child_lane(Trace& trace) {
    return named_lane(trace, 1, "spawned child", 1);
}

// The script's tensor as torch.randn writes it.
void fill(Recorder& recorder, LaneId lane, HostBuffer& tensor, int64_t batch) {
    ScopedSpan made(&recorder, lane, SpanKind::fetch, batch, tensor.size(), tensor.memory());
    std::memset(tensor.data(), 1, tensor.size());
}

// The stopwatch around one x.to("cuda"), and the synchronisation after it.
void time_one_copy(Device& device, Recorder& recorder, LaneId lane, LaneId stopwatch,
                   const HostBuffer& tensor, bool non_blocking, int64_t batch) {
    const size_t bytes = tensor.size();
    const TimeNs started = now_ns();
    DeviceBuffer destination = device.allocate_device(bytes);  // the caching allocator's first cudaMalloc
    Stream stream = device.create_stream(0);                   // the current stream, there from the start
    {
        std::optional<ScopedSpan> held;
        if (!tensor.pinned()) held.emplace(&recorder, lane, SpanKind::stage, batch, bytes, tensor.memory());
        device.copy_to_device(destination, 0, tensor, 0, bytes, stream, non_blocking, batch);
    }
    Span timed;
    timed.start = started;
    timed.end = now_ns();
    timed.kind = SpanKind::stopwatch;
    timed.batch = batch;
    timed.bytes = bytes;
    timed.memory = tensor.memory();
    timed.lane = stopwatch;
    recorder.span(timed);
    ScopedSpan waiting(&recorder, lane, SpanKind::sync, batch);  // what the stopwatch left out
    device.synchronize(stream);
}

// A real GPU: the fresh process's steps, drawn on this trace's lanes (host steps on `lane`).
void draw_fresh_process(const PipelineConfig& config, bool pinned, Trace& trace, Recorder& recorder,
                        LaneId lane, int64_t batch) {
    NaiveCopyRequest request;
    request.bytes = static_cast<size_t>(config.batch_bytes());
    request.pinned = pinned;
    request.non_blocking = config.non_blocking;
    request.gpu = config.gpu;
    const LaneId stopwatch = stopwatch_lane(trace);
    for (const NaiveCopyStep& step : run_naive_copy_in_fresh_process(request)) {
        Span span;
        span.start = step.start;
        span.end = step.end;
        span.kind = step.kind;
        span.batch = batch;
        span.lane = step.kind == SpanKind::stopwatch ? stopwatch
                    : step.kind == SpanKind::h2d     ? trace.lanes().device_lane(LaneRole::h2d, 0, config.gpu)
                                                     : lane;
        if (step.kind == SpanKind::startup) span.name = trace.intern(step.what);
        if (step.kind == SpanKind::h2d || step.kind == SpanKind::stage || step.kind == SpanKind::stopwatch) {
            span.bytes = request.bytes;
            span.memory = pinned ? HostMemory::pinned : HostMemory::pageable;
        }
        recorder.span(span);
    }
}

}  // namespace

void run_naive_benchmark(const PipelineConfig& config, Device& device, Trace& trace, Recorder& recorder,
                         LaneId lane, int64_t batch) {
    const auto bytes = static_cast<size_t>(config.batch_bytes());
    const bool real = device.info().kind == "cuda";
    if (real && !config.spawned_child)
        return draw_fresh_process(config, config.pin_memory, trace, recorder, lane, batch);
    // The script's tensor, made (and pinned) in this process: the parent's, with spawned_child.
    HostBuffer tensor =
        device.allocate_host(bytes, config.pin_memory ? HostMemory::pinned : HostMemory::pageable);
    fill(recorder, lane, tensor, batch);
    if (!config.spawned_child)
        return time_one_copy(device, recorder, lane, stopwatch_lane(trace), tensor, config.non_blocking,
                             batch);

    // The child gets the tensor unpinned and times the copy.
    const LaneId child = child_lane(trace);
    if (real) return draw_fresh_process(config, /*pinned=*/false, trace, recorder, child, batch);
    std::exception_ptr failure;
    std::thread spawned([&] {  // the child process: its own thread, recorder, lane and cold device
        try {
            this_thread_lane() = child;
            std::shared_ptr<Recorder> own = trace.make_recorder();
            DeviceSelection fresh = make_device(config, trace);
            HostBuffer received = fresh.device->allocate_host(bytes, HostMemory::pageable);
            {
                ScopedSpan unpickled(own.get(), child, SpanKind::fetch, batch, bytes, HostMemory::pageable);
                std::memcpy(received.data(), tensor.data(), bytes);
            }
            time_one_copy(*fresh.device, *own, child, stopwatch_lane(trace), received, config.non_blocking,
                          batch);
        } catch (...) {
            failure = std::current_exception();
        }
    });
    spawned.join();
    if (failure) std::rethrow_exception(failure);
}

}  // namespace pinscope
