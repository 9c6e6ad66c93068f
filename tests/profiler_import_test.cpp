// Importing PyTorch profiler traces (core/io/kineto/): both layouts torch writes (Kineto's object with
// categories, and the legacy top-level array), .gz, the loader's side files, and every way a stranger's
// file can be broken. The traces here are written by hand, small enough to read; the real ones recorded
// on the H100 are checked in tests/profiler_fixtures_test.cpp.
#include <doctest/doctest.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/analysis/metrics.h"
#include "core/analysis/profiler_steps.h"
#include "core/io/capture.h"
#include "core/io/kineto/loader_side_files.h"
#include "core/io/kineto/profiler_trace_import.h"
#include "tests/scratch.h"

namespace pinscope {

namespace {

std::filesystem::path write_text(const std::string& name, const std::string& text) {
    const std::filesystem::path path = testing::scratch_path(name);
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

std::filesystem::path write_gzip(const std::string& name, const std::string& text) {
    const std::filesystem::path path = testing::scratch_path(name);
    gzFile gz = gzopen(path.c_str(), "wb");
    gzwrite(gz, text.data(), static_cast<unsigned>(text.size()));
    gzclose(gz);
    return path;
}

// Two steps of a train loop (pid 100, thread 100) that waits for a batch, copies it in (pinned, then
// pageable) and runs a kernel on GPU 0's stream 7; a pin-memory thread; timestamps as torch 2.4 and later
// write them (microseconds with three decimals after baseTimeNanoseconds, which comes after the events).
std::string modern_trace() {
    std::string events = R"json(
  {"ph": "M", "name": "process_name", "pid": 100, "tid": 0, "args": {"name": "python3"}},
  {"ph": "M", "name": "thread_name", "pid": 100, "tid": 100, "args": {"name": "MainThread"}},
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#0", "pid": 100, "tid": 100, "ts": 1000.000, "dur": 1000.0},
  {"ph": "X", "cat": "user_annotation", "name": "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", "pid": 100, "tid": 100, "ts": 1000.500, "dur": 399.5},
  {"ph": "X", "cat": "cpu_op", "name": "aten::to", "pid": 100, "tid": 100, "ts": 1410.0, "dur": 50.0, "args": {"External id": 3}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 100, "tid": 100, "ts": 1420.0, "dur": 10.0, "args": {"correlation": 11}},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pinned -> Device)", "pid": 0, "tid": 7, "ts": 1425.0, "dur": 20.0, "args": {"device": 0, "stream": 7, "correlation": 11, "bytes": 1048576, "memory bandwidth (GB/s)": 52.4}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 100, "ts": 1470.0, "dur": 5.0, "args": {"correlation": 12}},
  {"ph": "X", "cat": "kernel", "name": "gemm_kernel", "pid": 0, "tid": 7, "ts": 1480.0, "dur": 400.0, "args": {"device": 0, "stream": 7, "correlation": 12}},
  {"ph": "s", "cat": "ac2g", "name": "ac2g", "id": 12, "pid": 100, "tid": 100, "ts": 1470.0},
  {"ph": "f", "cat": "ac2g", "name": "ac2g", "id": 12, "pid": 0, "tid": 7, "ts": 1480.0, "bp": "e"},
  {"ph": "X", "cat": "cpu_op", "name": "aten::pin_memory", "pid": 100, "tid": 170, "ts": 1100.0, "dur": 200.0},
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 100, "tid": 100, "ts": 2000.000, "dur": 1000.0},
  {"ph": "X", "cat": "user_annotation", "name": "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", "pid": 100, "tid": 100, "ts": 2000.250, "dur": 99.75},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 100, "tid": 100, "ts": 2110.0, "dur": 300.0, "args": {"correlation": 21}},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 7, "ts": 2120.0, "dur": 200.0, "args": {"device": 0, "stream": 7, "correlation": 21, "bytes": 1048576, "memory bandwidth (GB/s)": "N/A"}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 100, "ts": 2420.0, "dur": 5.0, "args": {"correlation": 22}},
  {"ph": "X", "cat": "kernel", "name": "gemm_kernel", "pid": 0, "tid": 7, "ts": 2430.0, "dur": 400.0, "args": {"device": 0, "stream": 7, "correlation": 22}},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoH (Device -> Pinned)", "pid": 0, "tid": 7, "ts": 2840.0, "dur": 5.0, "args": {"device": 0, "stream": 7, "correlation": 23, "bytes": 4096}},
  {"ph": "i", "cat": "cpu_instant_event", "name": "marker", "pid": 100, "tid": 100, "ts": 2900.0, "s": "t"}
)json";
    return R"({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85024112640}],
 "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 1},
 "traceEvents": [)" +
           events + R"(],
 "traceName": "trace.json", "baseTimeNanoseconds": 1764000000000000000})";
}

// The same run as an older torch writes it: a bare array of events, categories Memcpy/Kernel/Runtime,
// "Pagable", GPU threads named "stream 7", absolute integer microseconds.
std::string older_trace() {
    return R"json([
  {"ph": "X", "cat": "Operator", "name": "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "pid": 100, "tid": "100", "ts": 1700000000001000, "dur": 400},
  {"ph": "X", "cat": "Runtime", "name": "cudaMemcpyAsync", "pid": 100, "tid": "100", "ts": 1700000000001420, "dur": 10, "args": {"correlation": 11}},
  {"ph": "X", "cat": "Memcpy", "name": "Memcpy HtoD (Pagable -> Device)", "pid": 0, "tid": "stream 7", "ts": 1700000000001425, "dur": 200, "args": {"correlation": 11, "bytes": 2097152}},
  {"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": "100", "ts": 1700000000001650, "dur": 5, "args": {"correlation": 12}},
  {"ph": "X", "cat": "Kernel", "name": "gemm_kernel", "pid": 0, "tid": "stream 7", "ts": 1700000000001660, "dur": 300, "args": {"correlation": 12}}
])json";
}

const LaneInfo* lane_of(const Capture& c, LaneRole role) {
    for (const LaneInfo& lane : c.store.lanes())
        if (lane.role == role) return &lane;
    return nullptr;
}

}  // namespace

TEST_CASE("a torch 2.4+ profiler trace imports with its lanes, copies, kernels, waits, batches and flows") {
    const Capture c = import_profiler_trace(write_text("modern.json", modern_trace()));
    CHECK(c.info.import_note == "");
    CHECK(!c.info.config);
    CHECK(c.info.device.name == "NVIDIA H100 80GB HBM3");
    CHECK(c.info.source == "PyTorch profiler trace (rank 0 of 1)");

    const LaneInfo* main = lane_of(c, LaneRole::main);
    REQUIRE(main);
    CHECK(main->origin == LaneOrigin{100, 100});
    CHECK(main->name == "train loop (MainThread)");
    CHECK(main->group_name == "python3 (pid 100)");
    const LaneInfo* pin = lane_of(c, LaneRole::pin);
    REQUIRE(pin);
    CHECK(pin->origin == LaneOrigin{100, 170});
    const LaneInfo* h2d = lane_of(c, LaneRole::h2d);
    const LaneInfo* kernel = lane_of(c, LaneRole::kernel);
    const LaneInfo* d2h = lane_of(c, LaneRole::d2h);
    REQUIRE(h2d);
    REQUIRE(kernel);
    REQUIRE(d2h);
    CHECK(h2d->origin == LaneOrigin{0, 7});
    CHECK(h2d->group == LaneGroup::device);
    CHECK(h2d->group_name == "GPU 0: NVIDIA H100 80GB HBM3");

    // Copies: direction, memory kind and bytes from the names and args; batch k after the k-th wait.
    const auto copies = c.store.spans(h2d->id);
    REQUIRE(copies.size() == 2);
    CHECK(copies[0].memory == HostMemory::pinned);
    CHECK(copies[1].memory == HostMemory::pageable);
    CHECK(copies[0].bytes == 1048576);
    CHECK(copies[0].batch == 0);
    CHECK(copies[1].batch == 1);
    CHECK(c.store.name(copies[0].name) == "Memcpy HtoD (Pinned -> Device)");
    // Times in nanoseconds from the first span: the step at 1000.000 us is 0, the copy 425 us later.
    CHECK(copies[0].start == 425'000);
    CHECK(copies[0].duration() == 20'000);
    const auto kernels = c.store.spans(kernel->id);
    REQUIRE(kernels.size() == 2);
    CHECK(kernels[0].kind == SpanKind::kernel);
    CHECK(kernels[1].batch == 1);
    CHECK(c.store.spans(d2h->id).size() == 1);
    CHECK(c.store.spans(d2h->id)[0].memory == HostMemory::pinned);

    // The train loop: steps hold waits and operators, one level down.
    int waits = 0;
    for (const Span& span : c.store.spans(main->id)) {
        const std::string_view name = c.store.name(span.name);
        CAPTURE(name);
        if (span.kind == SpanKind::wait) {
            CHECK(span.depth == 1);
            CHECK(span.batch == waits);
            ++waits;
        }
        if (name.starts_with("ProfilerStep#")) {
            CHECK(span.depth == 0);
            CHECK(c.store.category_name(span.kind) == "user_annotation");
        }
        if (name == "aten::to") CHECK(c.store.category_name(span.kind) == "cpu_op");
    }
    CHECK(waits == 2);
    // A flow from each launch to its GPU work (4 correlated GPU spans; the D2H copy has no launch here).
    CHECK(c.store.flows().size() == 4);

    // Metrics as pinscope's own runs have them.
    const Metrics m = capture_metrics(c);
    CHECK(m.batches == 2);
    CHECK(m.h2d_pinned_bytes == 1048576);
    CHECK(m.h2d_pageable_bytes == 1048576);
    CHECK(m.h2d_pinned_gbps == doctest::Approx(1048576 / 20e3).epsilon(1e-9));
    CHECK(m.h2d_pageable_gbps == doctest::Approx(1048576 / 200e3).epsilon(1e-9));
    const ProfilerSteps steps = profiler_steps(c.store);
    REQUIRE(steps.steps.size() == 2);
    CHECK(steps.steps[1].number == 1);
    // 399.5 us and 99.75 us of waiting in two 1000 us steps.
    CHECK(steps.data_wait_share == doctest::Approx((399.5 + 99.75) / 2000.0).epsilon(1e-9));
    CHECK(steps.steps_per_s == doctest::Approx(2 / 2000e-6).epsilon(1e-9));
}

TEST_CASE("an older profiler trace (a bare array, Memcpy/Kernel/Runtime, Pagable, stream N) imports too") {
    const Capture c = import_profiler_trace(write_text("older.json", older_trace()));
    const LaneInfo* h2d = lane_of(c, LaneRole::h2d);
    REQUIRE(h2d);
    CHECK(h2d->origin == LaneOrigin{0, 7});
    const auto copies = c.store.spans(h2d->id);
    REQUIRE(copies.size() == 1);
    CHECK(copies[0].memory == HostMemory::pageable);
    CHECK(copies[0].bytes == 2097152);
    CHECK(copies[0].batch == 0);
    CHECK(copies[0].start == 425'000);
    REQUIRE(lane_of(c, LaneRole::kernel));
    CHECK(c.store.flows().size() == 2);
    REQUIRE(lane_of(c, LaneRole::main));
    CHECK(lane_of(c, LaneRole::main)->origin == LaneOrigin{100, 100});
}

TEST_CASE("a .json.gz trace reads as its JSON does, without unpacking it to disk") {
    const Capture plain = import_profiler_trace(write_text("plain.json", modern_trace()));
    const Capture gz = import_profiler_trace(write_gzip("packed.json.gz", modern_trace()));
    CHECK(gz.info.import_note == "");
    CHECK(gz.store.span_count() == plain.store.span_count());
    CHECK(gz.store.flows() == plain.store.flows());
    CHECK(capture_metrics(gz).h2d_bytes == capture_metrics(plain).h2d_bytes);
}

TEST_CASE("load_capture opens a profiler trace, and an imported capture saves and reopens with its origin") {
    const Capture c = load_capture(write_text("via-load.json", modern_trace()));
    CHECK(c.info.source.starts_with("PyTorch profiler trace"));
    const std::filesystem::path saved = testing::scratch_path("imported.pinscope");
    save_capture(saved, c.store, c.info);
    const Capture again = load_capture(saved);
    CHECK(again.info.source == c.info.source);
    CHECK(again.store.span_count() == c.store.span_count());
    CHECK(again.store.flows().size() == c.store.flows().size());
}

TEST_CASE("a broken or foreign file is refused in one line, a partly usable one opens with a note") {
    const std::string good = modern_trace();
    SUBCASE("cut short: the events before the cut are kept") {
        const Capture c =
            import_profiler_trace(write_text("cut.json", good.substr(0, good.find("ProfilerStep#1"))));
        CHECK(c.info.import_note.find("truncated") != std::string::npos);
        CHECK(c.store.spans(lane_of(c, LaneRole::h2d)->id).size() == 1);
    }
    SUBCASE("a gzip stream cut short") {
        const std::filesystem::path whole = write_gzip("whole.json.gz", good);
        std::ifstream in(whole, std::ios::binary);
        std::string bytes((std::istreambuf_iterator<char>(in)), {});
        const Capture c =
            import_profiler_trace(write_text("cut.json.gz", bytes.substr(0, bytes.size() * 3 / 4)));
        CHECK(c.info.import_note.find("gzip stream is cut short") != std::string::npos);
    }
    SUBCASE("events with missing fields or wrong types are skipped and counted") {
        std::string text = good;
        text.replace(text.find("\"dur\": 399.5"), 12, "\"dur\": \"x\"  ");
        text.replace(text.find("\"ph\": \"X\", \"cat\": \"kernel\""), 9, "\"hp\": \"X\"");
        const Capture c = import_profiler_trace(write_text("bad-fields.json", text));
        CHECK(c.info.import_note.find("skipped 2 malformed events") != std::string::npos);
        CHECK(c.store.spans(lane_of(c, LaneRole::kernel)->id).size() == 1);
    }
    SUBCASE("an event that is not JSON costs only itself") {
        std::string text = good;
        text.replace(text.find("\"name\": \"aten::to\""), 7, "\"name\" ");  // no colon
        const Capture c = import_profiler_trace(write_text("bad-json.json", text));
        CHECK(c.info.import_note.find("skipped 1 malformed") != std::string::npos);
        REQUIRE(lane_of(c, LaneRole::h2d));
        CHECK(c.store.spans(lane_of(c, LaneRole::h2d)->id).size() == 2);
    }
    SUBCASE("no GPU events") {
        std::string text =
            R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 5, "dur": 2}]})";
        const Capture c = import_profiler_trace(write_text("cpu-only.json", text));
        CHECK(c.info.import_note.find("no GPU events") != std::string::npos);
    }
    const auto refused = [](const std::string& name, const std::string& text) {
        const std::filesystem::path path = write_text(name, text);
        try {
            load_capture(path);
        } catch (const CaptureError& e) {
            const std::string what = e.what();
            CHECK(what.find(path.string()) == 0);
            CHECK(what.find('\n') == std::string::npos);
            return what;
        }
        FAIL("opened " << name);
        return std::string();
    };
    CHECK(refused("foreign.json", R"({"name": "package.json", "version": "1.0"})")
              .find("nor a PyTorch profiler trace") != std::string::npos);
    CHECK(refused("no-events.json", R"({"traceEvents": []})").find("no events pinscope can show") !=
          std::string::npos);
    CHECK(refused("only-metadata.json", R"({"traceEvents": [{"ph": "M", "name": "process_name", "pid": 1}]})")
              .find("no events") != std::string::npos);
    CHECK(refused("cut-early.json", R"({"traceEvents": [{"ph": "X", "na)").find("truncated") !=
          std::string::npos);
    CHECK(!refused("not-json.json", "{ this is not json").empty());
    CHECK(!refused("garbage.bin", std::string("\x01\x02garbage", 9)).empty());
}

TEST_CASE(
    "the loader's side files put the real workers on lanes, with batch ids matched to the trace's waits") {
    const std::filesystem::path dir = testing::scratch_path("side-run");
    std::filesystem::create_directories(dir / "pinscope-loader");
    const std::filesystem::path trace = dir / "trace.json";
    std::ofstream(trace) << modern_trace();
    // Monotonic clock 5e9 ns is wall clock 1764000000000000000 + 1000 us (the trace's first step).
    const int64_t mono0 = 5'000'000'000;
    const std::string clock = R"("clock": {"wall_ns": 1764000000001000000, "monotonic_ns": 5000000000})";
    const auto at = [&](double us) { return std::to_string(mono0 + static_cast<int64_t>(us * 1000)); };
    std::ofstream(dir / "pinscope-loader" / "r1-100.jsonl")
        << R"({"pinscope_loader": 1, "run": "r1", "pid": 100, "process": "main", "worker_id": null, )"
        << clock << R"(, "loader": {"batch_size": 4, "num_workers": 2, "pin_memory": true}, "cpu_count": 16})"
        << "\n"
        << "[\"epoch\", " << at(-5)
        << ", 0]\n"
        // The wrapper's wait starts a little before the profiler's annotation inside it.
        << "[\"wait\", " << at(0.4) << ", " << at(400.1) << ", 0, 0]\n"
        << "[\"wait\", " << at(1000.2) << ", " << at(1100.1) << ", 0, 1]\n"
        << "[\"pin\", " << at(100) << ", " << at(300) << ", null, null, 1048576]\n";
    std::ofstream worker(dir / "pinscope-loader" / "r1-201.jsonl");
    worker << R"({"pinscope_loader": 1, "run": "r1", "pid": 201, "process": "worker", "worker_id": 0, )"
           << clock << "}\n";
    for (int i = 0; i < 4; ++i)
        worker << "[\"fetch\", " << at(-500 + i * 100) << ", " << at(-420 + i * 100) << ", 0, 0, " << i
               << "]\n";
    worker << "[\"collate\", " << at(-100) << ", " << at(-50) << ", 0, 0, 4]\n";
    for (int i = 0; i < 4; ++i)
        worker << "[\"fetch\", " << at(200 + i * 100) << ", " << at(280 + i * 100) << ", 0, 1, " << 4 + i
               << "]\n";
    worker << "[\"collate\", " << at(600) << ", " << at(650) << ", 0, 1, 4]\n";
    worker << "[\"fetch\", 12, 13, 0, 2\n";  // a line cut off by a killed worker
    worker.close();

    const Capture c = import_profiler_trace(trace);
    CHECK(c.info.source == "PyTorch profiler trace + loader side files (rank 0 of 1)");
    CHECK(c.info.samples_per_batch == 4);
    // The loader's settings, with the recording host's cores (what advise counts), kept in the capture.
    CHECK(c.info.loader.value("num_workers", 0) == 2);
    CHECK(c.info.loader.value("host_cpu_count", 0) == 16);
    const LaneInfo* w = lane_of(c, LaneRole::worker);
    REQUIRE(w);
    CHECK(w->origin == LaneOrigin{201, 201});
    CHECK(w->name == "worker 0");
    int fetches[2] = {0, 0}, builds = 0, collates = 0;
    for (const Span& span : c.store.spans(w->id)) {
        if (c.store.category_name(span.kind) == "dataset") {
            REQUIRE(span.batch >= 0);
            REQUIRE(span.batch < 2);
            ++fetches[span.batch];
        } else if (span.kind == SpanKind::fetch) {
            CHECK(span.depth == 0);  // a batch's build holds its samples' fetches and its collate
            ++builds;
        } else {
            CHECK(c.store.category_name(span.kind) == "collate");
            CHECK(span.depth == 1);
            ++collates;
        }
    }
    CHECK(builds == 2);
    CHECK(fetches[0] == 4);
    CHECK(fetches[1] == 4);
    CHECK(collates == 2);
    // The pin goes to the trace's pin thread, with the batch collated last before it.
    const LaneInfo* pin = lane_of(c, LaneRole::pin);
    REQUIRE(pin);
    bool pinned = false;
    for (const Span& span : c.store.spans(pin->id))
        if (span.kind == SpanKind::pin) {
            pinned = true;
            CHECK(span.batch == 0);
            CHECK(span.bytes == 1048576);
        }
    CHECK(pinned);
    // The worker's first fetch sits 500 us before the first step: the clocks line up.
    const Span& first = c.store.spans(w->id)[0];
    const Span& step = c.store.spans(lane_of(c, LaneRole::main)->id)[0];
    CHECK(first.start < step.start);
    CHECK(c.info.import_note.find("") == 0);
    // samples/s now that the batch size is known: 2 batches of 4.
    CHECK(capture_metrics(c).samples == 8);
}

TEST_CASE("a stranger's main side file that collates as well as its workers still pins without a batch") {
    // PyTorch's main process collates only with num_workers=0; this file says 1 and collates anyway, then
    // pins a batch it does not name. The pin looks for a worker's batch and must not read past the
    // (empty) list of them: the fuzzer found that read (UBSan, stl_bvector.h).
    const std::filesystem::path dir = testing::scratch_path("side-run-stranger");
    std::filesystem::create_directories(dir / "pinscope-loader");
    const std::filesystem::path trace = dir / "trace.json";
    std::ofstream(trace) << modern_trace();
    const int64_t mono0 = 5'000'000'000;
    const auto at = [&](double us) { return std::to_string(mono0 + static_cast<int64_t>(us * 1000)); };
    std::ofstream(dir / "pinscope-loader" / "r1-100.jsonl")
        << R"({"pinscope_loader": 1, "run": "r1", "pid": 100, "process": "main", "worker_id": null, )"
        << R"("clock": {"wall_ns": 1764000000001000000, "monotonic_ns": 5000000000}, )"
        << R"("loader": {"batch_size": 4, "num_workers": 1, "pin_memory": true}})"
        << "\n"
        << "[\"wait\", " << at(0.4) << ", " << at(400.1) << ", 0, 0]\n"
        << "[\"collate\", " << at(100) << ", " << at(200) << ", 0, 0, 4]\n"
        << "[\"pin\", " << at(200) << ", " << at(300) << ", null, null, 1048576]\n";
    const Capture c = import_profiler_trace(trace);
    const LaneInfo* pin = lane_of(c, LaneRole::pin);
    REQUIRE(pin);
    int pins = 0;
    for (const Span& span : c.store.spans(pin->id))
        if (span.kind == SpanKind::pin && span.bytes == 1048576) {
            ++pins;
            CHECK(span.batch == kNoBatch);  // no worker collated a batch before it
        }
    CHECK(pins == 1);
}

TEST_CASE("a side file's reader refuses a foreign first line and skips records it cannot read") {
    CHECK_THROWS_AS(parse_loader_side_file("{\"hello\": 1}\n"), std::runtime_error);
    CHECK_THROWS_AS(parse_loader_side_file(""), std::runtime_error);
    CHECK_THROWS_AS(parse_loader_side_file("{\"pinscope_loader\": 1}\n"), std::runtime_error);  // no clock
    const LoaderProcess p = parse_loader_side_file(
        "{\"pinscope_loader\": 1, \"run\": \"x\", \"pid\": 7, \"process\": \"worker\", \"worker_id\": 3, "
        "\"clock\": {\"wall_ns\": 10, \"monotonic_ns\": 4}}\n"
        "[\"fetch\", 1, 2, 0, 0, 5]\n[\"fetch\", 3, 2, 0, 0, 5]\n[\"nonsense\"]\n{}\n[\"collate\", 2, 3, 0, "
        "0, 1]\n");
    CHECK(p.worker_id == 3);
    CHECK(p.wall_minus_monotonic == 6);
    CHECK(p.records.size() == 2);
    CHECK(p.bad_lines == 3);
}

}  // namespace pinscope

namespace pinscope {

TEST_CASE(
    "a folder of traces (tensorboard_trace_handler's) opens its one trace, or lists several to pick from") {
    const std::filesystem::path one = testing::scratch_path("tb-one");
    std::filesystem::create_directories(one);
    std::ofstream(one / "host_1234.1764000000.pt.trace.json")
        << R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 5, "dur": 2}]})";
    std::ofstream(one / "notes.txt") << "not a trace";
    CHECK(load_capture(one).store.span_count() == 1);

    const std::filesystem::path two = testing::scratch_path("tb-two");
    std::filesystem::create_directories(two);
    for (const char* name : {"worker0.1.pt.trace.json", "worker1.1.pt.trace.json"})
        std::ofstream(two / name) << R"({"traceEvents": []})";
    CHECK_THROWS_WITH_AS(
        load_capture(two),
        doctest::Contains("is a folder of 2 profiler traces; name one of them: worker0.1.pt.trace.json, "
                          "worker1.1.pt.trace.json"),
        CaptureError);
    const std::filesystem::path none = testing::scratch_path("tb-none");
    std::filesystem::create_directories(none);
    CHECK_THROWS_WITH_AS(load_capture(none), doctest::Contains("is a folder, not a capture"), CaptureError);
}

}  // namespace pinscope
