// Chrome Trace Event export: what Perfetto and chrome://tracing need to draw a pinscope trace.
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "core/io/chrome_trace.h"
#include "core/io/track_assignment.h"

using namespace pinscope;
using nlohmann::json;

namespace {

constexpr TimeNs kBase = 1'700'000'000'123'456'789;  // a steady_clock reading of a long-running machine

struct Capture {
    LaneRegistry registry;
    LaneId main = registry.lane(LaneRole::main);
    LaneId worker = registry.lane(LaneRole::worker, 0);
    LaneId pin = registry.lane(LaneRole::pin);
    LaneId h2d = registry.lane(LaneRole::h2d, 0);
    LaneId kernel = registry.lane(LaneRole::kernel, 0);
    LaneId d2h = registry.lane(LaneRole::d2h, 0);
    TraceStore store;

    void add(LaneId lane, SpanKind kind, TimeNs start, TimeNs end, int64_t batch = kNoBatch,
             uint64_t bytes = 0, HostMemory memory = HostMemory::none) {
        Span s;
        s.lane = lane;
        s.kind = kind;
        s.start = kBase + start;
        s.end = kBase + end;
        s.batch = batch;
        s.bytes = bytes;
        s.memory = memory;
        store.add(s);
    }

    // Three batches through every stage; batch 1's copy partly overlaps batch 0's on the H2D lane.
    Capture() {
        store.set_lanes(registry.snapshot());
        for (int b = 0; b < 3; ++b) {
            const TimeNs t = b * 10'000;
            add(worker, SpanKind::fetch, t, t + 4'000, b);
            add(pin, SpanKind::pin, t + 4'000, t + 5'000, b, 1 << 20, HostMemory::pinned);
            add(main, SpanKind::wait, t + 5'000, t + 5'500);
            add(h2d, SpanKind::h2d, t + 5'500, t + 7'500, b, 1 << 20, HostMemory::pinned);
            add(kernel, SpanKind::kernel, t + 7'500, t + 9'000, b);
            add(d2h, SpanKind::d2h, t + 9'000, t + 9'100, b, 4096, HostMemory::pinned);
        }
        add(h2d, SpanKind::h2d, 6'000, 8'000, 7, 1000, HostMemory::pageable);  // partly overlaps batch 0's
        add(main, SpanKind::stage, 6'000, 7'999, 7, 1000, HostMemory::pageable);
        add(main, SpanKind::sync, 8'000, 8'001);
        store.add(CounterSample{kBase + 100, 2, CounterKind::outstanding_batches});
        store.add(CounterSample{kBase + 5'000, 1, CounterKind::outstanding_batches});
        store.add(CounterSample{kBase + 200, 0, CounterKind::reorder_depth});
        store.add(CounterSample{kBase + 300, 1 << 22, CounterKind::pinned_bytes});
    }
};

ExportInfo info_for_test() {
    ExportInfo info;
    info.device_name = "Simulated \"H100\"";
    info.config = {{"num_workers", 1}};
    info.metrics = {{"gpu_busy", 0.5}};
    return info;
}

std::string export_text(const TraceStore& store, const ExportInfo& info = info_for_test()) {
    std::ostringstream out;
    write_chrome_trace(out, store, info);
    return out.str();
}

json events_of(const json& trace, const std::string& phase) {
    json result = json::array();
    for (const json& e : trace["traceEvents"])
        if (e["ph"] == phase) result.push_back(e);
    return result;
}

// ts and dur back in nanoseconds: they are printed with exactly three decimals.
TimeNs ns(const json& value) {
    return std::llround(value.get<double>() * 1000);
}

std::map<std::pair<int, int>, std::string> thread_names(const json& trace) {
    std::map<std::pair<int, int>, std::string> names;
    for (const json& e : events_of(trace, "M"))
        if (e["name"] == "thread_name") names[{e["pid"], e["tid"]}] = e["args"]["name"];
    return names;
}

}  // namespace

TEST_CASE("overlapping spans of a lane get separate tracks and touching ones share") {
    std::vector<Span> spans(4);
    spans[0].start = 0, spans[0].end = 10;
    spans[1].start = 5, spans[1].end = 15;   // overlaps 0
    spans[2].start = 10, spans[2].end = 20;  // starts where 0 ends
    spans[3].start = 12, spans[3].end = 13;  // inside 1 and 2
    const TrackAssignment tracks = assign_tracks(spans, 0);
    CHECK(tracks.tracks == 3);
    CHECK(tracks.track_of == std::vector<uint32_t>{0, 1, 0, 2});
    CHECK(assign_tracks(spans, 11).track_of == std::vector<uint32_t>{kNoTrack, 0, 1, 2});
}

TEST_CASE("the export names the host and device processes and every lane's threads") {
    Capture capture;
    const json trace = json::parse(export_text(capture.store));
    std::map<int, std::string> processes;
    for (const json& e : events_of(trace, "M"))
        if (e["name"] == "process_name") processes[e["pid"]] = e["args"]["name"];
    CHECK(processes == std::map<int, std::string>{{1, "host"}, {2, "Simulated \"H100\""}});

    std::set<std::string> names;
    for (const auto& [thread, name] : thread_names(trace)) names.insert(name);
    CHECK(names == std::set<std::string>{"train loop", "worker 0", "pin thread", "stream 0 H2D",
                                         "stream 0 H2D (2)", "stream 0 kernel", "stream 0 D2H"});

    // Sort indices keep the lane order, and the extra H2D track sits right below its lane.
    std::map<std::string, int64_t> sort_index;
    const auto threads = thread_names(trace);
    for (const json& e : events_of(trace, "M"))
        if (e["name"] == "thread_sort_index")
            sort_index[threads.at({e["pid"], e["tid"]})] = e["args"]["sort_index"];
    CHECK(sort_index["train loop"] < sort_index["worker 0"]);
    CHECK(sort_index["worker 0"] < sort_index["pin thread"]);
    CHECK(sort_index["stream 0 H2D"] < sort_index["stream 0 H2D (2)"]);
    CHECK(sort_index["stream 0 H2D (2)"] < sort_index["stream 0 kernel"]);
    CHECK(sort_index["stream 0 kernel"] < sort_index["stream 0 D2H"]);
}

TEST_CASE("every span becomes an X slice named after its kind with its batch, bytes and memory") {
    Capture capture;
    const json trace = json::parse(export_text(capture.store));
    const json slices = events_of(trace, "X");
    CHECK(slices.size() == capture.store.span_count());
    std::set<std::string> kinds;
    for (const json& x : slices) {
        kinds.insert(x["name"].get<std::string>());
        CHECK(x["cat"] == (x["pid"] == 2 ? "gpu" : "host"));
    }
    CHECK(kinds == std::set<std::string>{"fetch", "pin", "wait", "stage", "sync", "h2d", "kernel", "d2h"});

    const auto copy = std::find_if(slices.begin(), slices.end(), [](const json& x) {
        return x["name"] == "h2d" && x["args"].value("batch", kNoBatch) == 1;
    });
    REQUIRE(copy != slices.end());
    CHECK((*copy)["pid"] == 2);
    CHECK((*copy)["args"]["bytes"] == 1 << 20);
    CHECK((*copy)["args"]["memory"] == "pinned");
    CHECK((*copy)["args"]["gbps"].get<double>() == doctest::Approx((1 << 20) / 2000.0).epsilon(1e-3));

    const auto wait =
        std::find_if(slices.begin(), slices.end(), [](const json& x) { return x["name"] == "wait"; });
    REQUIRE(wait != slices.end());
    CHECK((*wait)["args"] == json::object());  // no batch, bytes or memory to tell
}

TEST_CASE("ts is microseconds from the earliest exported time, exact to the nanosecond") {
    Capture capture;
    capture.add(capture.worker, SpanKind::fetch, 1'234'567, 1'234'567 + 1'001, 9);
    const std::string text = export_text(capture.store);
    // The earliest time is batch 0's fetch, at kBase.
    CHECK(text.find(R"("ts":1234.567,"dur":1.001)") != std::string::npos);
    const json trace = json::parse(text);
    TimeNs earliest = std::numeric_limits<TimeNs>::max();
    for (const json& e : trace["traceEvents"]) {
        if (e["ph"] == "M") continue;
        CHECK(e["ts"].get<double>() >= 0);
        earliest = std::min(earliest, ns(e["ts"]));
    }
    CHECK(earliest == 0);
    CHECK(trace["displayTimeUnit"] == "ns");
    CHECK(trace["otherData"]["base_time_ns"] == kBase);
}

TEST_CASE("counters become C events on the host process, one track per kind") {
    Capture capture;
    const json counters = events_of(json::parse(export_text(capture.store)), "C");
    std::map<std::string, std::vector<double>> values;
    for (const json& c : counters) {
        CHECK(c["pid"] == 1);
        values[c["name"]].push_back(c["args"]["value"]);
    }
    CHECK(values["outstanding batches"] == std::vector<double>{2, 1});
    CHECK(values["reorder buffer depth"] == std::vector<double>{0});
    CHECK(values["pinned bytes in use"] == std::vector<double>{1 << 22});
}

TEST_CASE("flows link the spans of one batch across lanes in time order") {
    Capture capture;
    const json trace = json::parse(export_text(capture.store));
    std::map<int64_t, std::vector<json>> flows;
    for (const json& e : trace["traceEvents"])
        if (e["ph"] == "s" || e["ph"] == "t" || e["ph"] == "f") flows[e["id"]].push_back(e);
    CHECK(flows.size() == 4);  // batches 0, 1, 2 and 7
    for (int64_t batch : {0, 1, 2}) {
        const std::vector<json>& steps = flows[batch];
        REQUIRE(steps.size() == 5);  // fetch, pin, h2d, kernel, d2h
        CHECK(steps.front()["ph"] == "s");
        CHECK(steps.back()["ph"] == "f");
        CHECK(steps.back()["bp"] == "e");
        for (size_t i = 1; i + 1 < steps.size(); ++i) CHECK(steps[i]["ph"] == "t");
        for (size_t i = 1; i < steps.size(); ++i) CHECK(ns(steps[i - 1]["ts"]) <= ns(steps[i]["ts"]));
    }
    // Each step sits inside a slice of the same batch on its own thread.
    const json slices = events_of(trace, "X");
    for (const auto& flow : flows) {
        const auto batch = flow.first;  // named: clang 14 lambdas cannot capture a structured binding
        for (const json& step : flow.second) {
            const bool bound = std::any_of(slices.begin(), slices.end(), [&](const json& x) {
                return x["pid"] == step["pid"] && x["tid"] == step["tid"] &&
                       x["args"].value("batch", kNoBatch) == batch && ns(x["ts"]) <= ns(step["ts"]) &&
                       ns(step["ts"]) <= ns(x["ts"]) + ns(x["dur"]);
            });
            CHECK(bound);
        }
    }
}

TEST_CASE("no two slices on one thread partly overlap, even when the lane's spans did") {
    Capture capture;
    // Many copies in flight at once on one lane, as CUPTI may report them.
    for (int i = 0; i < 50; ++i)
        capture.add(capture.h2d, SpanKind::h2d, 40'000 + i * 100, 40'000 + i * 100 + 1'000, 100 + i);
    const json slices = events_of(json::parse(export_text(capture.store)), "X");
    std::map<std::pair<int, int>, std::vector<std::pair<TimeNs, TimeNs>>> by_thread;
    for (const json& x : slices)
        by_thread[{x["pid"], x["tid"]}].push_back({ns(x["ts"]), ns(x["ts"]) + ns(x["dur"])});
    for (auto& [thread, intervals] : by_thread) {
        std::sort(intervals.begin(), intervals.end());
        for (size_t i = 1; i < intervals.size(); ++i) {
            const auto [start, end] = intervals[i];
            const auto [prev_start, prev_end] = intervals[i - 1];
            const bool disjoint = start >= prev_end;
            const bool nested = end <= prev_end;
            CHECK((disjoint || nested));
        }
    }
    CHECK(by_thread.size() > 7);  // the lane needed extra threads
}

TEST_CASE("otherData holds the title, device, config, metrics and version") {
    Capture capture;
    const json other = json::parse(export_text(capture.store))["otherData"];
    CHECK(other["title"] == "pinscope");
    CHECK(other["device"] == "Simulated \"H100\"");
    CHECK(other["config"]["num_workers"] == 1);
    CHECK(other["metrics"]["gpu_busy"] == 0.5);
    CHECK_FALSE(other["pinscope_version"].get<std::string>().empty());
}

TEST_CASE("an export window keeps the spans that overlap it and the counter level at its start") {
    Capture capture;
    ExportInfo info = info_for_test();
    info.start = kBase + 12'000;  // inside batch 1's fetch (10'000 .. 14'000)
    info.end = kBase + 15'000;
    const json trace = json::parse(export_text(capture.store, info));
    std::multiset<std::string> kinds;
    for (const json& x : events_of(trace, "X")) kinds.insert(x["name"].get<std::string>());
    CHECK(kinds == std::multiset<std::string>{"fetch", "pin", "wait"});  // the wait starts at its end
    const json counters = events_of(trace, "C");
    const auto outstanding = std::find_if(counters.begin(), counters.end(),
                                          [](const json& c) { return c["name"] == "outstanding batches"; });
    REQUIRE(outstanding != counters.end());
    CHECK((*outstanding)["args"]["value"] == 1);                  // set at 5'000, still in force at 12'000
    CHECK(trace["otherData"]["base_time_ns"] == kBase + 10'000);  // batch 1's fetch starts first
    CHECK(ns((*outstanding)["ts"]) == 2'000);                     // drawn from the window's start
}

TEST_CASE("an empty store exports a valid trace with only the host process") {
    const TraceStore store;
    const json trace = json::parse(export_text(store));
    CHECK(events_of(trace, "X").empty());
    CHECK(events_of(trace, "M").size() == 2);
}

TEST_CASE("save_chrome_trace replaces the file whole and leaves no temporary file") {
    Capture capture;
    const std::filesystem::path folder =
        std::filesystem::temp_directory_path() / ("pinscope-export-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(folder);
    const std::filesystem::path path = folder / "capture.trace.json";
    std::ofstream(path) << "old";
    save_chrome_trace(path, capture.store, info_for_test());
    std::ifstream in(path);
    CHECK(json::parse(in)["otherData"]["title"] == "pinscope");
    CHECK(std::distance(std::filesystem::directory_iterator(folder), {}) == 1);
    std::filesystem::remove_all(folder);
}

TEST_CASE("save_chrome_trace to an unwritable path throws and leaves nothing") {
    Capture capture;
    const std::filesystem::path folder =
        std::filesystem::temp_directory_path() / ("pinscope-export-fail-" + std::to_string(::getpid()));
    std::filesystem::create_directories(folder / "a folder");

    // A folder that does not exist: nothing can be created.
    CHECK_THROWS_AS(save_chrome_trace(folder / "missing" / "t.json", capture.store, {}), std::runtime_error);
    // A path that is a folder: the temporary file is written, then cannot replace it, and is removed.
    CHECK_THROWS_AS(save_chrome_trace(folder / "a folder", capture.store, {}), std::runtime_error);

    std::vector<std::string> left;
    for (const auto& entry : std::filesystem::directory_iterator(folder))
        left.push_back(entry.path().filename());
    CHECK(left == std::vector<std::string>{"a folder"});
    CHECK(std::filesystem::is_empty(folder / "a folder"));
    std::filesystem::remove_all(folder);
}

TEST_CASE("the error for a missing folder says which path and what to check") {
    const TraceStore store;
    try {
        save_chrome_trace("/nonexistent-pinscope-folder/t.json", store, {});
        FAIL("no exception");
    } catch (const std::runtime_error& error) {
        const std::string message = error.what();
        CHECK(message.find("/nonexistent-pinscope-folder/t.json") != std::string::npos);
        CHECK(message.find("the folder /nonexistent-pinscope-folder does not exist") != std::string::npos);
    }
}
