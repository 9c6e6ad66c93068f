#pragma once
// What the trace records: spans (something a thread or an engine did from start to end) and counter
// samples (a level that changes over time). Both are plain values, small enough to copy around freely.
#include <array>
#include <cstdint>
#include <string_view>

#include "core/trace/clock.h"

namespace pinscope {

using LaneId = uint16_t;
constexpr LaneId kNoLane = 0xFFFF;
constexpr int64_t kNoBatch = -1;

enum class SpanKind : uint8_t {
    fetch,      // a worker (or the main thread with num_workers=0) builds one batch: read, decode, collate
    pin,        // a batch is copied into page-locked memory (PyTorch's pin thread, or inline)
    wait,       // the train loop waits for the next batch from the loader
    stage,      // a host thread is held inside a pageable copy while the driver stages it
    sync,       // a host thread waits for the GPU (a blocking copy, an event, a full stream)
    h2d,        // host-to-device copy on a copy engine
    kernel,     // the compute kernel of one batch (or one chunk of it)
    d2h,        // device-to-host copy of the result
    tracing,    // a thread waited for the trace collector to make room: what observing cost it
    startup,    // a process's start-up work: the CUDA context, a fresh pinned or device allocation
    stopwatch,  // what a benchmark's own timer covered (a naive benchmark's one timed copy)
    count
};
constexpr int kSpanKindCount = static_cast<int>(SpanKind::count);

constexpr std::array<std::string_view, kSpanKindCount> kSpanKindNames = {
    "fetch", "pin", "wait", "stage", "sync", "h2d", "kernel", "d2h", "tracing", "startup", "stopwatch"};

// A span's kind is its category. The kinds above are pinscope's own, which its metrics and advisor know;
// a trace pinscope did not record (an import) brings categories of its own ("cpu_op", "cuda_runtime"),
// which take the values from kSpanKindCount up and are named by the trace's CategoryTable
// (core/trace/category_table.h). Metrics leave them out; the timeline and the exports keep them.
constexpr int kMaxSpanKinds = 256;
inline bool is_builtin(SpanKind kind) {
    return static_cast<int>(kind) < kSpanKindCount;
}

// The name of one of pinscope's own kinds; "" for an imported category (its table names it).
inline std::string_view span_kind_name(SpanKind kind) {
    return is_builtin(kind) ? kSpanKindNames[static_cast<int>(kind)] : std::string_view();
}

// A copy over the link, in either direction (a pin or a stage span moves bytes too, but on the host).
inline bool is_copy(SpanKind kind) {
    return kind == SpanKind::h2d || kind == SpanKind::d2h;
}

// Which host memory a copy touched. Pageable copies are the lesson of the whole tool, so every span
// that moves bytes says which it was.
enum class HostMemory : uint8_t { none, pageable, pinned };

inline std::string_view host_memory_name(HostMemory m) {
    constexpr std::string_view kNames[] = {"", "pageable", "pinned"};
    return kNames[static_cast<size_t>(m)];
}

constexpr uint32_t kNoName = 0;
constexpr uint32_t kMaxNameId = (1u << 24) - 1;  // a span's name is 24 bits: 16.7 million distinct names
constexpr int kMaxSpanDepth = 127;               // and its depth 7

struct Span {
    TimeNs start = 0;
    TimeNs end = 0;
    int64_t batch = kNoBatch;
    uint64_t bytes = 0;
    LaneId lane = kNoLane;
    SpanKind kind = SpanKind::fetch;
    HostMemory memory = HostMemory::none;
    // An index into the trace's string table (TraceStore::name): a file a worker read, a kernel's or an
    // operator's name from an imported trace. kNoName for spans their kind names. With `depth` and `cut`
    // it fits in the padding that the fields above leave, so a span stays 40 bytes.
    uint32_t name : 24 = kNoName;
    // How deep the span nests in others on its lane: 0 for a top-level span, 1 for one inside it, and so
    // on (an operator inside a step inside an annotation). pinscope's own spans do not nest.
    uint32_t depth : 7 = 0;
    // The run ended (its seconds, a stop) before this work did: the span ends where it was cut off, not
    // where the work would have ended. A 10 s kernel in a 1 s run is drawn and exported as cut.
    uint32_t cut : 1 = 0;

    TimeNs duration() const { return end - start; }
};
static_assert(sizeof(Span) == 40, "a span's size is what a 10-million-span capture costs in memory");

enum class CounterKind : uint8_t {
    outstanding_batches,  // dispatched to workers and not yet handed to the train loop
    reorder_depth,        // batches that arrived early and wait in the reorder buffer
    pinned_bytes,         // page-locked host memory held by the pipeline's pools
    count
};
constexpr int kCounterKindCount = static_cast<int>(CounterKind::count);

constexpr std::array<std::string_view, kCounterKindCount> kCounterKindNames = {
    "outstanding batches", "reorder buffer depth", "pinned bytes in use"};

inline std::string_view counter_kind_name(CounterKind kind) {
    return kCounterKindNames[static_cast<int>(kind)];
}

struct CounterSample {
    TimeNs time = 0;
    double value = 0;
    CounterKind kind = CounterKind::outstanding_batches;
};

}  // namespace pinscope
