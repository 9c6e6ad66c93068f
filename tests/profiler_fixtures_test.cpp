// The profiler traces recorded on the GPU machine with pinscope_loader (tests/fixtures/torch-traces/):
// what the importer makes of them is checked against the traces' own JSON, read here with nlohmann::json
// (not the importer's simdjson path), and `pinscope stats` against the same numbers computed
// independently.
#include <doctest/doctest.h>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/analysis/intervals.h"
#include "core/config/validate.h"
#include "core/io/capture.h"
#include "core/io/kineto/profiler_trace_import.h"
#include "core/lab/trace_replay.h"
#include "tests/run_binary.h"

namespace pinscope {

namespace {

const std::filesystem::path kFixtures = PINSCOPE_FIXTURES;
const std::vector<std::string> kRuns = {"input-w0-pageable", "input-w0-pinned", "input-w4-pageable",
                                        "input-w4-pinned", "gpu-w4-pinned"};
constexpr int kBatchSize = 32;

nlohmann::json read_trace(const std::string& run) {
    const std::filesystem::path path = kFixtures / run / "trace.json.gz";
    gzFile gz = gzopen(path.c_str(), "rb");
    REQUIRE(gz);
    std::string text;
    char buffer[1 << 16];
    for (int n; (n = gzread(gz, buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<size_t>(n));
    gzclose(gz);
    return nlohmann::json::parse(text);
}

bool has(const nlohmann::json& e, const char* key) {
    return e.contains(key);
}
std::string text_of(const nlohmann::json& e, const char* key) {
    return has(e, key) && e[key].is_string() ? e[key].get<std::string>() : "";
}

// What the JSON says, computed from it directly.
struct Expected {
    struct Copy {
        double ts = 0, dur = 0;
        HostMemory memory = HostMemory::none;
        uint64_t bytes = 0;
    };
    std::vector<Copy> h2d;  // by time
    double steps_from = 0, steps_to = 0, step_time = 0, waited_in_steps = 0;
    int waits = 0;
};

Expected expected_from(const nlohmann::json& trace) {
    Expected x;
    std::vector<std::pair<double, double>> steps, waits;
    for (const nlohmann::json& e : trace["traceEvents"]) {
        if (text_of(e, "ph") != "X") continue;
        const std::string cat = text_of(e, "cat"), name = text_of(e, "name");
        const double ts = e["ts"].get<double>(), dur = e["dur"].get<double>();
        if (cat == "gpu_memcpy" && name.find("HtoD") != std::string::npos) {
            Expected::Copy copy{ts, dur};
            copy.memory = name.find("Pageable") != std::string::npos ? HostMemory::pageable
                          : name.find("Pinned") != std::string::npos ? HostMemory::pinned
                                                                     : HostMemory::none;
            copy.bytes = e["args"]["bytes"].get<uint64_t>();
            x.h2d.push_back(copy);
        } else if (cat == "user_annotation" && name.starts_with("ProfilerStep#")) {
            steps.push_back({ts, ts + dur});
        } else if (cat == "user_annotation" && name.starts_with("enumerate(DataLoader)#")) {
            waits.push_back({ts, ts + dur});
        }
    }
    std::sort(x.h2d.begin(), x.h2d.end(), [](auto& a, auto& b) { return a.ts < b.ts; });
    std::sort(steps.begin(), steps.end());
    REQUIRE(!steps.empty());
    x.steps_from = steps.front().first;
    x.steps_to = steps.back().second;
    x.waits = static_cast<int>(waits.size());
    // Time waited inside the steps: the waits do not overlap one another, so clipped lengths add up.
    for (const auto& [from, to] : steps) {
        x.step_time += to - from;
        for (const auto& [wfrom, wto] : waits)
            x.waited_in_steps += std::max(0.0, std::min(to, wto) - std::max(from, wfrom));
    }
    return x;
}

std::vector<Span> spans_of(const Capture& c, SpanKind kind, std::optional<LaneRole> role = std::nullopt) {
    std::vector<Span> out;
    for (const LaneInfo& lane : c.store.lanes())
        if (!role || lane.role == *role)
            for (const Span& span : c.store.spans(lane.id))
                if (span.kind == kind) out.push_back(span);
    std::sort(out.begin(), out.end(), [](const Span& a, const Span& b) { return a.start < b.start; });
    return out;
}

}  // namespace

TEST_CASE(
    "every H2D copy of the H200 fixtures keeps its memory kind and bytes from the trace's memcpy events") {
    for (const std::string& run : kRuns) {
        CAPTURE(run);
        const Expected x = expected_from(read_trace(run));
        const Capture c = import_profiler_trace(kFixtures / run / "trace.json.gz");
        CHECK(c.info.import_note == "");
        const std::vector<Span> copies = spans_of(c, SpanKind::h2d);
        REQUIRE(copies.size() == x.h2d.size());
        REQUIRE(!copies.empty());
        for (size_t i = 0; i < copies.size(); ++i) {
            CAPTURE(i);
            CHECK(copies[i].memory == x.h2d[i].memory);
            CHECK(copies[i].bytes == x.h2d[i].bytes);
            CHECK(copies[i].duration() == static_cast<TimeNs>(std::llround(x.h2d[i].dur * 1000)));
        }
        const bool pinned = run.find("pinned") != std::string::npos;
        CHECK(std::all_of(copies.begin(), copies.end(), [&](const Span& s) {
            return s.memory == (pinned ? HostMemory::pinned : HostMemory::pageable);
        }));
    }
}

TEST_CASE(
    "with workers, the worker lanes hold one fetch per sample and one collate per batch, batch ids as the "
    "trace's waits") {
    for (const std::string& run : kRuns) {
        CAPTURE(run);
        const Expected x = expected_from(read_trace(run));
        const Capture c = import_profiler_trace(kFixtures / run / "trace.json.gz");
        CHECK(c.info.samples_per_batch == kBatchSize);
        const bool workers = run.find("w4") != std::string::npos;
        // Batch k is the train loop's k-th wait; each of the trace's batches was fetched whole.
        // Per batch: its samples' fetches (category "dataset"), its collate, and its build (a fetch span
        // around both, as pinscope's own loader draws a batch), all on the loader's lanes.
        const LaneRole loader_role = workers ? LaneRole::worker : LaneRole::main;
        std::map<int64_t, int> fetched, collated, built;
        for (const LaneInfo& lane : c.store.lanes())
            for (const Span& span : c.store.spans(lane.id)) {
                const std::string_view category = c.store.category_name(span.kind);
                if (category != "dataset" && category != "collate" && span.kind != SpanKind::fetch) continue;
                CHECK(lane.role == loader_role);
                if (category == "dataset") ++fetched[span.batch];
                if (category == "collate") ++collated[span.batch];
                if (span.kind == SpanKind::fetch) ++built[span.batch];
            }
        REQUIRE(x.waits > 0);
        for (int64_t b = 0; b < x.waits; ++b) {
            CAPTURE(b);
            CHECK(fetched[b] == kBatchSize);
            CHECK(collated[b] == 1);
            CHECK(built[b] == 1);
        }
        int worker_lanes = 0;
        for (const LaneInfo& lane : c.store.lanes()) worker_lanes += lane.role == LaneRole::worker;
        CHECK(worker_lanes == (workers ? 4 : 0));
    }
}

TEST_CASE(
    "pinscope stats reports pageable and pinned H2D bytes, GB/s and the data-wait share as the JSON gives "
    "them") {
    for (const std::string& run : kRuns) {
        CAPTURE(run);
        const Expected x = expected_from(read_trace(run));
        uint64_t pageable = 0, pinned = 0;
        std::vector<Interval> pageable_time, pinned_time;
        for (const Expected::Copy& copy : x.h2d) {
            const double end = copy.ts + copy.dur;
            if (!(end > x.steps_from && end <= x.steps_to))
                continue;  // the metrics count what ends in the steps
            const Interval time{static_cast<TimeNs>(std::llround(copy.ts * 1000)),
                                static_cast<TimeNs>(std::llround(end * 1000))};
            (copy.memory == HostMemory::pageable ? pageable : pinned) += copy.bytes;
            (copy.memory == HostMemory::pageable ? pageable_time : pinned_time).push_back(time);
        }
        const auto busy_ns = [](std::vector<Interval> list) {
            if (list.empty()) return TimeNs{0};
            TimeNs from = list.front().start, to = list.front().end;
            for (const Interval& i : list) from = std::min(from, i.start), to = std::max(to, i.end);
            return total_length(normalized(std::move(list), {from, to}));
        };
        const testing::BinaryResult r = testing::run_binary(
            PINSCOPE_BINARY, {"stats", "--json", (kFixtures / run / "trace.json.gz").string()});
        REQUIRE(r.exit_code == 0);
        const nlohmann::json stats = nlohmann::json::parse(r.out);
        const auto near = [](double a, double b) { return a == doctest::Approx(b).epsilon(0.01); };
        CHECK(stats["h2d_pageable_bytes"].get<uint64_t>() == pageable);
        CHECK(stats["h2d_pinned_bytes"].get<uint64_t>() == pinned);
        const double pageable_gbps = pageable ? double(pageable) / double(busy_ns(pageable_time)) : 0;
        const double pinned_gbps = pinned ? double(pinned) / double(busy_ns(pinned_time)) : 0;
        CHECK(near(stats["h2d_pageable_gbps"].get<double>(), pageable_gbps));
        CHECK(near(stats["h2d_pinned_gbps"].get<double>(), pinned_gbps));
        CHECK(near(stats["steps"]["data_wait_share"].get<double>(), x.waited_in_steps / x.step_time));
        CHECK(stats["steps"]["count"].get<int>() > 0);
        // The numbers say what each run was: input-bound runs wait most of each step, the GPU-bound one
        // hardly at all.
        if (run.starts_with("input"))
            CHECK(stats["steps"]["data_wait_share"].get<double>() > 0.5);
        else
            CHECK(stats["steps"]["data_wait_share"].get<double>() < 0.05);
    }
}

}  // namespace pinscope

namespace pinscope {

TEST_CASE(
    "the lab's model of each H200 fixture reads its settings and costs from the trace and its side files") {
    for (const std::string& run : kRuns) {
        CAPTURE(run);
        const TraceModel model = model_of_trace(import_profiler_trace(kFixtures / run / "trace.json.gz"));
        const PipelineConfig& c = model.config;
        CHECK(model.steps == 24);
        CHECK(c.batch_size == kBatchSize);
        CHECK(c.num_workers == (run.find("w4") != std::string::npos ? 4 : 0));
        CHECK(c.pin_memory == (run.find("pinned") != std::string::npos));
        if (c.pin_memory) CHECK(c.non_blocking);  // record_fixture.py copies pinned batches non_blocking
        CHECK(c.sample_shape == SampleShape{{3, 64, 64}});  // 32 x 3x64x64 float32 and 32 int64 labels
        CHECK(c.streams == 1);
        // record_fixture.py spends 2 ms of CPU per sample for input runs, 0.5 ms for the GPU-bound one;
        // the fetch around it costs a little more.
        const double spent = run.starts_with("input") ? 2000 : 500;
        CHECK(c.decode_us >= spent);
        CHECK(c.decode_us <= spent * 1.25);
        // Five 16384^2 bf16 products a step run for tens of milliseconds; the tiny model's kernels for
        // well under one.
        if (run.starts_with("gpu"))
            CHECK(c.kernel_us > 30'000);
        else
            CHECK(c.kernel_us < 1'000);
        CHECK(validate(c).ok());
        for (const InferredKnob& knob : model.knobs) CHECK(!knob.from.empty());
    }
}

}  // namespace pinscope
