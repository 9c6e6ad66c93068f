#include "core/io/chrome_trace.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <vector>

#include "core/files/output_file.h"
#include "core/io/event_stream.h"
#include "core/io/track_assignment.h"

#ifndef PINSCOPE_VERSION
#define PINSCOPE_VERSION "unknown"
#endif

// Index of this file:
// [SECTION] Lanes, tracks and the time base
// [SECTION] Metadata: process and thread names
// [SECTION] Spans, flows and counters
// [SECTION] Writing a file

namespace pinscope {

namespace {

constexpr int kHostPid = 1;
constexpr int kDevicePid = 2;
constexpr int64_t kTracksPerSortKey = 1000;  // room for a lane's extra tracks between two sort keys

//------------------------------------------------------------------------------------------------------------
// [SECTION] Lanes, tracks and the time base
//------------------------------------------------------------------------------------------------------------

Interval export_range(const ExportInfo& info) {
    if (info.start == 0 && info.end == 0)
        return {std::numeric_limits<TimeNs>::min(), std::numeric_limits<TimeNs>::max()};
    return {info.start, std::max(info.start, info.end)};
}

std::string json_string(std::string_view text) {
    return nlohmann::json(text).dump();
}

// One lane as exported: its spans that start by the end of the range, spread over tracks (threads).
struct ExportedLane {
    const LaneInfo* info = nullptr;
    std::span<const Span> spans;
    TrackAssignment tracks;
    int pid = kHostPid;
    int first_tid = 0;  // track k is thread first_tid + k
};

std::vector<ExportedLane> export_lanes(const TraceStore& store, Interval range) {
    std::vector<ExportedLane> lanes;
    for (const LaneInfo& info : store.lanes()) {
        ExportedLane lane;
        lane.info = &info;
        lane.spans = store.spans_touching(info.id, range);
        lane.tracks = assign_tracks(lane.spans, range.start);
        lane.pid = info.group == LaneGroup::device ? kDevicePid : kHostPid;
        if (lane.tracks.tracks > 0) lanes.push_back(std::move(lane));
    }
    std::stable_sort(lanes.begin(), lanes.end(), [](const ExportedLane& a, const ExportedLane& b) {
        return a.info->sort_key < b.info->sort_key;
    });
    int next_tid = 1;
    for (ExportedLane& lane : lanes) {
        lane.first_tid = next_tid;
        next_tid += static_cast<int>(lane.tracks.tracks);
    }
    return lanes;
}

std::span<const CounterSample> exported_samples(const TraceStore& store, int kind, Interval range) {
    return store.samples_in(CounterKind(kind), range);
}

// The earliest exported time: every ts is relative to it, so none is negative.
TimeNs base_time(const TraceStore& store, const std::vector<ExportedLane>& lanes, Interval range) {
    TimeNs base = std::numeric_limits<TimeNs>::max();
    for (const ExportedLane& lane : lanes) {
        // Spans are sorted by start, so the first exported one starts earliest.
        for (size_t i = 0; i < lane.spans.size(); ++i) {
            if (lane.tracks.track_of[i] == kNoTrack) continue;
            base = std::min(base, lane.spans[i].start);
            break;
        }
    }
    for (int kind = 0; kind < kCounterKindCount; ++kind) {
        std::span<const CounterSample> samples = exported_samples(store, kind, range);
        if (!samples.empty()) base = std::min(base, std::max(samples.front().time, range.start));
    }
    return base == std::numeric_limits<TimeNs>::max() ? 0 : base;
}

//------------------------------------------------------------------------------------------------------------
// [SECTION] Metadata: process and thread names
//------------------------------------------------------------------------------------------------------------

void write_metadata(EventStream& events, int pid, int tid, std::string_view name, std::string_view arg) {
    fmt::format_to(std::back_inserter(events.next_event()),
                   R"({{"ph":"M","pid":{},"tid":{},"name":"{}","args":{}}})", pid, tid, name, arg);
}

void write_process_names(EventStream& events, const std::vector<ExportedLane>& lanes,
                         const ExportInfo& info) {
    const bool has_device = std::any_of(lanes.begin(), lanes.end(),
                                        [](const ExportedLane& lane) { return lane.pid == kDevicePid; });
    write_metadata(events, kHostPid, 0, "process_name", R"({"name":"host"})");
    write_metadata(events, kHostPid, 0, "process_sort_index", R"({"sort_index":0})");
    if (!has_device) return;
    const std::string device = info.device_name.empty() ? "GPU" : info.device_name;
    write_metadata(events, kDevicePid, 0, "process_name",
                   fmt::format(R"({{"name":{}}})", json_string(device)));
    write_metadata(events, kDevicePid, 0, "process_sort_index", R"({"sort_index":1})");
}

void write_thread_names(EventStream& events, const std::vector<ExportedLane>& lanes) {
    for (const ExportedLane& lane : lanes) {
        for (uint32_t track = 0; track < lane.tracks.tracks; ++track) {
            const int tid = lane.first_tid + static_cast<int>(track);
            const std::string name =
                track == 0 ? lane.info->name : fmt::format("{} ({})", lane.info->name, track + 1);
            write_metadata(events, lane.pid, tid, "thread_name",
                           fmt::format(R"({{"name":{}}})", json_string(name)));
            const int64_t sort_index = int64_t{lane.info->sort_key} * kTracksPerSortKey + track;
            write_metadata(events, lane.pid, tid, "thread_sort_index",
                           fmt::format(R"({{"sort_index":{}}})", sort_index));
        }
    }
}

//------------------------------------------------------------------------------------------------------------
// [SECTION] Spans, flows and counters
//------------------------------------------------------------------------------------------------------------

// A span recorded with end before start (a clock read out of order) is drawn with no length.
TimeNs drawn_duration(const Span& span) {
    return std::max<TimeNs>(span.duration(), 0);
}

bool moves_bytes(SpanKind kind) {
    return kind == SpanKind::pin || kind == SpanKind::stage || kind == SpanKind::h2d || kind == SpanKind::d2h;
}

// A span is named after its kind, unless it carries a name of its own (an imported kernel's).
std::string span_name_json(const TraceStore& store, const Span& span) {
    if (span.name == kNoName) return fmt::format("\"{}\"", span_kind_name(span.kind));
    return json_string(store.name(span.name));
}

void write_span(EventStream& events, const TraceStore& store, const Span& span, int pid, int tid,
                TimeNs base) {
    auto out = std::back_inserter(events.next_event());
    const TimeNs duration = drawn_duration(span);
    fmt::format_to(out, R"({{"ph":"X","name":{},"cat":"{}","pid":{},"tid":{},"ts":{},"dur":{},"args":{{)",
                   span_name_json(store, span), pid == kDevicePid ? "gpu" : "host", pid, tid,
                   Micros{span.start - base}, Micros{duration});
    const char* separator = "";
    if (span.batch != kNoBatch) {
        fmt::format_to(out, R"("batch":{})", span.batch);
        separator = ",";
    }
    if (span.bytes > 0) {
        fmt::format_to(out, R"({}"bytes":{})", separator, span.bytes);
        separator = ",";
    }
    if (span.memory != HostMemory::none) {
        fmt::format_to(out, R"({}"memory":"{}")", separator, host_memory_name(span.memory));
        separator = ",";
    }
    if (span.cut) {
        fmt::format_to(out, R"({}"cut":"the run ended before it did")", separator);
        separator = ",";
    }
    // bytes per nanosecond is GB/s; a cut copy's bytes did not all move
    if (moves_bytes(span.kind) && span.bytes > 0 && duration > 0 && !span.cut)
        fmt::format_to(out, R"({}"gbps":{:.3f})", separator, static_cast<double>(span.bytes) / duration);
    fmt::format_to(out, "}}}}");
}

// Where a flow arrow touches a span. The midpoint lies inside the span, so Perfetto binds the arrow to
// it, and ordering a batch's points by midpoint keeps every arrow pointing forward in time.
struct FlowPoint {
    int64_t batch = kNoBatch;
    TimeNs time = 0;
    int pid = 0, tid = 0;
};

void write_spans(EventStream& events, const TraceStore& store, const std::vector<ExportedLane>& lanes,
                 TimeNs base, std::vector<FlowPoint>& flow_points) {
    for (const ExportedLane& lane : lanes) {
        for (size_t i = 0; i < lane.spans.size(); ++i) {
            const uint32_t track = lane.tracks.track_of[i];
            if (track == kNoTrack) continue;
            const Span& span = lane.spans[i];
            const int tid = lane.first_tid + static_cast<int>(track);
            write_span(events, store, span, lane.pid, tid, base);
            if (span.batch != kNoBatch)
                flow_points.push_back({span.batch, span.start + drawn_duration(span) / 2, lane.pid, tid});
        }
    }
}

// One batch's arrow: "s" on its first span, "t" on each middle one, "f" on the last. "bp":"e" binds a
// step to the span around it rather than to the next one that starts on the thread.
void write_flow(EventStream& events, std::span<const FlowPoint> steps, TimeNs base) {
    for (size_t i = 0; i < steps.size(); ++i) {
        const char* phase = i == 0 ? R"("s")" : i + 1 == steps.size() ? R"("f","bp":"e")" : R"("t","bp":"e")";
        fmt::format_to(std::back_inserter(events.next_event()),
                       R"({{"ph":{},"name":"batch","cat":"batch","id":{},"pid":{},"tid":{},"ts":{}}})", phase,
                       steps[i].batch, steps[i].pid, steps[i].tid, Micros{steps[i].time - base});
    }
}

void write_flows(EventStream& events, std::vector<FlowPoint>& points, TimeNs base) {
    std::sort(points.begin(), points.end(), [](const FlowPoint& a, const FlowPoint& b) {
        return a.batch != b.batch ? a.batch < b.batch : a.time < b.time;
    });
    for (size_t first = 0; first < points.size();) {
        size_t stop = first + 1;
        while (stop < points.size() && points[stop].batch == points[first].batch) ++stop;
        if (stop - first > 1) write_flow(events, std::span(points).subspan(first, stop - first), base);
        first = stop;
    }
}

void write_counters(EventStream& events, const TraceStore& store, Interval range, TimeNs base) {
    for (int kind = 0; kind < kCounterKindCount; ++kind) {
        const std::string name = json_string(counter_kind_name(CounterKind(kind)));
        for (const CounterSample& sample : exported_samples(store, kind, range)) {
            if (!std::isfinite(sample.value)) continue;  // JSON has no NaN or infinity
            fmt::format_to(std::back_inserter(events.next_event()),
                           R"({{"ph":"C","name":{},"pid":{},"ts":{},"args":{{"value":{}}}}})", name, kHostPid,
                           Micros{std::max(sample.time, range.start) - base}, sample.value);
        }
    }
}

nlohmann::json other_data(const ExportInfo& info, TimeNs base) {
    return {{"title", info.title},     {"device", info.device_name}, {"config", info.config},
            {"metrics", info.metrics}, {"base_time_ns", base},       {"pinscope_version", PINSCOPE_VERSION}};
}

}  // namespace

//------------------------------------------------------------------------------------------------------------
// [SECTION] Writing a file
//------------------------------------------------------------------------------------------------------------

void write_chrome_trace(std::ostream& out, const TraceStore& store, const ExportInfo& info) {
    const Interval range = export_range(info);
    const std::vector<ExportedLane> lanes = export_lanes(store, range);
    const TimeNs base = base_time(store, lanes, range);

    EventStream events(out);
    events.raw(R"({"traceEvents":[)");
    write_process_names(events, lanes, info);
    write_thread_names(events, lanes);
    std::vector<FlowPoint> flow_points;
    write_spans(events, store, lanes, base, flow_points);
    write_counters(events, store, range, base);
    write_flows(events, flow_points, base);
    events.raw("\n],\"displayTimeUnit\":\"ns\",\"otherData\":");
    events.raw(other_data(info, base).dump());
    events.raw("}\n");
}

void save_chrome_trace(OutputFile& file, const TraceStore& store, const ExportInfo& info) {
    file.write([&](std::ostream& out) { write_chrome_trace(out, store, info); });
}

void save_chrome_trace(const std::filesystem::path& path, const TraceStore& store, const ExportInfo& info) {
    OutputFile file(path, "the trace");
    save_chrome_trace(file, store, info);
}

}  // namespace pinscope
