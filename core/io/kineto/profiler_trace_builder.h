#pragma once
// Turns a PyTorch profiler trace's events into pinscope's open trace model: a lane per host thread
// (process id, thread id) and per engine of a device's stream (copies in, kernels, copies out, memsets,
// others), spans with their name, category and depth, flows from each CUDA runtime call to the GPU work
// it launched, and batch ids.
//
// What pinscope's metrics and advisor read is mapped to its own kinds: `Memcpy HtoD (Pageable -> Device)`
// is an h2d span of pageable memory with its bytes, `Memcpy DtoH` a d2h span, a kernel a kernel span, the
// train loop's `enumerate(DataLoader)#...__next__` a wait span. Everything else keeps its category.
// Batch k is the k-th wait of the train loop: the copies and kernels its thread launched after that wait
// returned (and before the next one) carry it, so batches are counted as in pinscope's own runs.
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/io/capture.h"
#include "core/io/kineto/kineto_event.h"

namespace pinscope {

// What an import counted besides its spans, for the one-line note of what was skipped.
struct ImportCounts {
    uint64_t events = 0, spans = 0, flows = 0;
    uint64_t skipped_times = 0;   // ts or dur not finite, or negative, or too far from the rest
    uint64_t unpaired_flows = 0;  // a flow's end without its start
    uint64_t too_many_lanes = 0;  // events past the 65535th lane
};

class ProfilerTraceBuilder {
  public:
    void event(const KinetoEvent& e);
    // A top-level key other than traceEvents, with its value's JSON.
    void top_level(std::string_view key, std::string_view json);

    // The train loop's waits for data, in order, once every event is in (finish() needs them first too).
    // Batch k is waits()[k].
    std::vector<Interval> train_loop_waits();
    // The wall-clock nanoseconds at this trace's time 0, when the trace says (baseTimeNanoseconds, or
    // timestamps that are wall-clock microseconds); 0 when it cannot tell.
    int64_t wall_ns_at_zero() const;
    struct ThreadRef {
        int64_t pid = 0, tid = 0;  // pid 0: none
    };
    // The train loop's thread (after train_loop_waits()), and the thread that pins batches in process
    // `pid` (the trace's when it recorded one; else a lane of its own).
    ThreadRef train_loop_thread() const;
    ThreadRef pin_thread(int64_t pid) const;
    SpanKind category(std::string_view name) { return store_.intern_category(name); }
    // The earliest span start and latest span end so far, on this trace's time.
    TimeNs first_time() const;
    TimeNs last_time() const;

    // Spans from elsewhere (the loader's side files): on the lane of thread `tid` of process `pid`, made
    // when missing with `role`, `name` and the process's `process_name`.
    void add_host_span(int64_t pid, int64_t tid, LaneRole role, int index, std::string_view lane_name,
                       std::string_view process_name, Span span, std::string_view span_name = {});

    // The capture: lanes, spans sorted and nested, flows, the device. `counts` says what was skipped.
    Capture finish();
    const ImportCounts& counts() const { return counts_; }
    const std::string& rank_note() const { return rank_note_; }
    bool has_events() const { return counts_.spans > 0; }

  private:
    struct Slot {
        LaneInfo info;
        std::vector<Span> spans;
        uint64_t waits = 0, steps = 0, pin_ops = 0;
        bool role_fixed = false;  // set by add_host_span: its role is not guessed
    };
    struct SlotKey {
        int64_t a = 0, b = 0;
        int kind = 0;  // 0 host thread; else 1 + the device engine's LaneRole
        bool operator==(const SlotKey&) const = default;
    };
    struct SlotKeyHash {
        size_t operator()(const SlotKey& k) const {
            // Unsigned: a hostile trace's pid times the multiplier must wrap, not overflow.
            const uint64_t mixed = static_cast<uint64_t>(k.a) * 1'000'003u + static_cast<uint64_t>(k.b);
            return std::hash<uint64_t>()(mixed) ^ (static_cast<size_t>(k.kind) << 56);
        }
    };
    // A span on the host side or the device side of a correlation id, before lanes are sorted.
    struct Launch {
        int64_t correlation;
        uint32_t slot;
        uint32_t index;
    };
    struct FlowEnd {
        uint32_t slot;
        TimeNs start;
    };

    int64_t resolve(const TraceId& id);
    bool to_time(double us, TimeNs& out);
    uint32_t slot_for(const SlotKey& key, LaneGroup group);
    void host_event(const KinetoEvent& e, TimeNs start, TimeNs end);
    void device_event(const KinetoEvent& e, TimeNs start, TimeNs end);
    void metadata(const KinetoEvent& e);
    void flow_event(const KinetoEvent& e);
    void settle_roles();
    void assign_batches();
    void mark_staging();
    void name_lanes();

    std::vector<Slot> slots_;
    std::unordered_map<SlotKey, uint32_t, SlotKeyHash> slot_of_;
    std::unordered_map<std::string, int64_t> text_ids_;  // pid/tid strings to ids of their own
    std::unordered_map<int64_t, std::string> process_names_, device_names_, text_of_id_;
    std::unordered_map<int64_t, int64_t> process_sort_;
    std::unordered_map<SlotKey, std::string, SlotKeyHash> thread_names_;
    std::unordered_map<SlotKey, int64_t, SlotKeyHash> thread_sort_;
    std::vector<Launch> host_launches_, device_work_;
    std::unordered_map<int64_t, FlowEnd> flow_starts_;
    std::vector<std::pair<FlowEnd, FlowEnd>> host_flows_;
    TraceStore store_{TraceLimits{SIZE_MAX, SIZE_MAX}};
    CaptureInfo info_;
    ImportCounts counts_;
    bool have_origin_ = false, roles_settled_ = false;
    double origin_us_ = 0;      // the trace time (µs) that becomes 0
    int64_t base_time_ns_ = 0;  // baseTimeNanoseconds (torch 2.4 and later), 0 when absent
    int64_t main_slot_ = -1;
    std::string rank_note_;  // "rank 3 of 8" from distributedInfo
};

}  // namespace pinscope
