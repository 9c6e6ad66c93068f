// The simulated GPU's rules: stream order, events across streams, engines, link sharing, and how
// pinned and pageable memory differ. Durations are read from the spans the model records, which the
// model computes from the calibration, so these checks do not depend on how busy the machine is.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/device/naive_copy.h"
#include "core/device/page_aligned.h"
#include "core/device/sim/pageable_staging.h"
#include "core/device/sim/sim_device.h"
#include "core/trace/clock.h"
#include "core/trace/thread_lane.h"
#include "tests/leak_checks.h"
#include "tests/within.h"

using namespace pinscope;
using namespace pinscope::testing;

namespace {

constexpr size_t MiB = 1 << 20;

struct Bench {
    Trace trace;
    SimDevice device;
    TraceStore store;

    explicit Bench(Calibration calibration = builtin_calibration()) : device(trace, std::move(calibration)) {}

    std::vector<Span> spans(SpanKind kind) {
        trace.collect(store);
        std::vector<Span> found;
        for (const LaneInfo& lane : store.lanes())
            for (const Span& s : store.spans(lane.id))
                if (s.kind == kind) found.push_back(s);
        std::sort(found.begin(), found.end(), [](const Span& a, const Span& b) { return a.start < b.start; });
        return found;
    }
};

double seconds(const Span& s) {
    return ns_to_s(s.duration());
}

// A kernel that reads `bytes` of `input` for `us` microseconds and writes nothing.
KernelWork kernel_reading(const DeviceBuffer& input, size_t bytes, double us, int64_t batch) {
    KernelWork work;
    work.input = &input;
    work.input_bytes = bytes;
    work.duration_us = us;
    work.batch = batch;
    return work;
}

// Holds back work on several streams until one model instant: an event recorded after a long kernel.
// Work that waits on it starts when the kernel ends, however late the host issued it (within the
// kernel's half second), so tests of concurrency do not depend on how the host thread was scheduled.
struct Gate {
    Stream stream;
    Event open;
    DeviceBuffer scratch;
    explicit Gate(Device& device)
        : stream(device.create_stream(9)), open(device.create_event()), scratch(device.allocate_device(1)) {
        device.launch_kernel(kernel_reading(scratch, 1, 500'000, kNoBatch), stream);
        device.record(open, stream);
    }
};

bool overlap(const Span& a, const Span& b) {
    return a.start < b.end && b.start < a.end;
}

// A link of these bandwidths (GB/s) for every copy size, built in code: no file may describe a link this
// slow (calibration files are held to physical ranges), but a test may model one.
Calibration test_link(double pinned_gbps, double pageable_gbps) {
    Calibration c;
    c.name = "slow test link";
    c.source = "test";
    c.copy_engines = 3;
    const auto flat = [](double gbps) { return CopyCurve({{1024.0 * 1024.0, gbps}}, 0); };
    c.h2d_pinned = c.d2h_pinned = flat(pinned_gbps);
    c.h2d_pageable = c.d2h_pageable = flat(pageable_gbps);
    c.bidir_total_gbps = 2 * pinned_gbps;
    c.host_memcpy_gbps = 10;
    return c;
}

// A GPU whose copies crawl (1 MB/s), so a host thread can tell "returned at once" from "waited" with a
// margin of a whole second.
Calibration slow_link() {
    return test_link(0.001, 0.001);
}

// Two streams whose work starts at one model instant (see Gate), and buffers for copies between them.
struct GatedPair {
    Stream a, b;
    DeviceBuffer dev;
    HostBuffer host;
    Gate gate;
    GatedPair(Device& device, size_t bytes)
        : a(device.create_stream(0)),
          b(device.create_stream(1)),
          dev(device.allocate_device(bytes)),
          host(device.allocate_host(bytes, HostMemory::pinned)),
          gate(device) {
        device.wait(a, gate.open);
        device.wait(b, gate.open);
    }
};

// One stream, a device buffer, and a pinned and a pageable source of the same size; the pageable one
// written, as a batch is before it is copied (its pages are then resident, as a collated batch's are).
struct PinnedAndPageable {
    Stream stream;
    DeviceBuffer dst;
    HostBuffer pinned, pageable;
    PinnedAndPageable(Device& device, size_t bytes)
        : stream(device.create_stream(0)),
          dst(device.allocate_device(bytes)),
          pinned(device.allocate_host(bytes, HostMemory::pinned)),
          pageable(device.allocate_host(bytes, HostMemory::pageable)) {
        std::memset(pageable.data(), 1, bytes);
    }
};

}  // namespace

TEST_CASE("a lone pinned copy takes the calibrated time for its size, direction and memory") {
    Bench bench;
    PinnedAndPageable b(bench.device, 64 * MiB);
    auto& [stream, dst, pinned, pageable] = b;
    bench.device.copy_to_device(dst, 0, pinned, 0, 64 * MiB, stream, true, 1);
    bench.device.synchronize();

    auto copies = bench.spans(SpanKind::h2d);
    REQUIRE(copies.size() == 1);
    const Calibration& cal = builtin_calibration();
    CHECK(seconds(copies[0]) == within(cal.h2d_pinned.seconds(64.0 * MiB), 1e-3));
    CHECK(copies[0].memory == HostMemory::pinned);
    CHECK(copies[0].batch == 1);
}

TEST_CASE("a pageable copy's engine span is its DMA, from the first staged chunk, as CUPTI draws it") {
    // The caller stages the bytes for real through 2 MiB bounce buffers; the engine moves each chunk as
    // it is staged. A copy of one chunk is a short DMA at the pinned rate after the staging; a long one
    // spans the staging from its first chunk on, and ends with the last chunk's DMA.
    Bench bench;
    const Calibration& cal = builtin_calibration();
    for (const size_t bytes : {size_t{1} * MiB, size_t{64} * MiB}) {
        CAPTURE(bytes);
        PinnedAndPageable b(bench.device, bytes);
        auto& [stream, dst, pinned, pageable] = b;
        const TimeNs called = now_ns();
        bench.device.copy_to_device(dst, 0, pageable, 0, bytes, stream, false, 7);
        const TimeNs returned = now_ns();
        const Span copy = bench.spans(SpanKind::h2d).back();
        CHECK(copy.memory == HostMemory::pageable);
        CHECK(copy.bytes == bytes);
        CHECK(copy.batch == 7);
        const double chunk = std::min<double>(bytes, PageableStaging::kChunkBytes);
        CHECK(seconds(copy) >= cal.h2d_pinned.seconds(chunk) * (1 - 1e-3));  // at least the last chunk's DMA
        CHECK(copy.start > called);   // not from the call: the first chunk was staged first
        CHECK(copy.end <= returned);  // a blocking copy returns when its DMA is done
        if (bytes == PageableStaging::kChunkBytes / 2)
            CHECK(seconds(copy) == within(cal.h2d_pinned.seconds(chunk), 1e-3));
    }
}

TEST_CASE("pinned H2D of 64 MiB is over 4x faster than pageable, as measured on the H100") {
    const Calibration& cal = builtin_calibration();
    const double ratio = cal.h2d_pageable.seconds(64.0 * MiB) / cal.h2d_pinned.seconds(64.0 * MiB);
    CHECK(ratio > 4.0);
    CHECK(cal.h2d_pinned.gbps(64.0 * MiB) == doctest::Approx(54.03).epsilon(0.01));
    CHECK(cal.h2d_pinned.gbps(1.0 * MiB) == doctest::Approx(44.2).epsilon(0.01));
    CHECK(cal.h2d_pageable.gbps(256.0 * MiB) == doctest::Approx(5.94).epsilon(0.01));
}

TEST_CASE("small copies are dominated by the fixed latency") {
    const Calibration& cal = builtin_calibration();
    CHECK(cal.h2d_pinned.seconds(0) == within(cal.copy_latency_us * 1e-6, 1e-6));
    CHECK(cal.h2d_pinned.gbps(64 * 1024) < cal.h2d_pinned.gbps(1.0 * MiB));
    // Monotonic: a bigger copy never takes less time.
    double last = 0;
    for (double bytes = 1; bytes < 1e9; bytes *= 1.7) {
        const double t = cal.h2d_pinned.seconds(bytes);
        CHECK(t >= last);
        last = t;
    }
}

TEST_CASE("work on one stream runs in issue order and never overlaps") {
    Bench bench;
    Stream stream = bench.device.create_stream(0);
    DeviceBuffer dev = bench.device.allocate_device(16 * MiB);
    HostBuffer host = bench.device.allocate_host(16 * MiB, HostMemory::pinned);
    for (int b = 0; b < 4; ++b) {
        bench.device.copy_to_device(dev, 0, host, 0, 16 * MiB, stream, true, b);
        bench.device.launch_kernel(kernel_reading(dev, 16 * MiB, 300, b), stream);
        bench.device.copy_to_host(host, 0, dev, 0, 1 * MiB, stream, true, b);
    }
    bench.device.synchronize();
    std::vector<Span> all;
    for (SpanKind kind : {SpanKind::h2d, SpanKind::kernel, SpanKind::d2h})
        for (const Span& s : bench.spans(kind)) all.push_back(s);
    std::sort(all.begin(), all.end(), [](const Span& a, const Span& b) { return a.start < b.start; });
    REQUIRE(all.size() == 12);
    for (size_t i = 0; i < all.size(); ++i) {
        CHECK(all[i].batch == static_cast<int64_t>(i / 3));
        CHECK(all[i].kind == (i % 3 == 0 ? SpanKind::h2d : i % 3 == 1 ? SpanKind::kernel : SpanKind::d2h));
        if (i) CHECK(all[i].start >= all[i - 1].end);
    }
}

TEST_CASE("a kernel lasts kernel_us and kernels never run at once") {
    Bench bench;
    Stream a = bench.device.create_stream(0), b = bench.device.create_stream(1);
    DeviceBuffer dev = bench.device.allocate_device(MiB);
    for (int i = 0; i < 3; ++i) {
        bench.device.launch_kernel(kernel_reading(dev, MiB, 500, i), a);
        bench.device.launch_kernel(kernel_reading(dev, MiB, 500, 10 + i), b);
    }
    bench.device.synchronize();
    auto kernels = bench.spans(SpanKind::kernel);
    REQUIRE(kernels.size() == 6);
    for (size_t i = 0; i < kernels.size(); ++i) {
        CHECK(kernels[i].duration() == 500 * kNsPerUs);
        if (i) CHECK(kernels[i].start >= kernels[i - 1].end);
    }
}

// The live view reads the trace while the train loop may make no call for a long while (waiting for the
// loader): the device thread notes what finished meanwhile, though no caller wakes it.
TEST_CASE("work finishes on the timeline with no call into the device, an idle device's too") {
    Bench bench;
    Stream stream = bench.device.create_stream(0);
    DeviceBuffer dev = bench.device.allocate_device(MiB);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the device thread idles
    for (int64_t batch = 0; batch < 2; ++batch) {
        bench.device.launch_kernel(kernel_reading(dev, MiB, 2000, batch), stream);
        size_t seen = 0;
        for (int wait_ms = 0; wait_ms < 5000 && seen <= static_cast<size_t>(batch); wait_ms += 5) {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
            seen = bench.spans(SpanKind::kernel).size();
        }
        CHECK(seen == static_cast<size_t>(batch + 1));
    }
}

TEST_CASE("an event orders work across streams") {
    Bench bench;
    Stream copy = bench.device.create_stream(0), compute = bench.device.create_stream(1);
    Event copied = bench.device.create_event();
    DeviceBuffer dev = bench.device.allocate_device(64 * MiB);
    HostBuffer host = bench.device.allocate_host(64 * MiB, HostMemory::pinned);
    bench.device.copy_to_device(dev, 0, host, 0, 64 * MiB, copy, true, 1);
    bench.device.record(copied, copy);
    bench.device.wait(compute, copied);
    bench.device.launch_kernel(kernel_reading(dev, 64 * MiB, 100, 1), compute);
    bench.device.synchronize();
    auto h2d = bench.spans(SpanKind::h2d);
    auto kernel = bench.spans(SpanKind::kernel);
    REQUIRE(h2d.size() == 1);
    REQUIRE(kernel.size() == 1);
    CHECK(kernel[0].start >= h2d[0].end);
    CHECK(bench.device.ready(copied));
}

TEST_CASE("without an event between them, work on two streams overlaps: copy during kernel") {
    Bench bench;
    Gate gate(bench.device);
    Stream copy = bench.device.create_stream(0), compute = bench.device.create_stream(1);
    DeviceBuffer dev = bench.device.allocate_device(64 * MiB);
    HostBuffer host = bench.device.allocate_host(64 * MiB, HostMemory::pinned);
    bench.device.wait(copy, gate.open);
    bench.device.wait(compute, gate.open);
    bench.device.launch_kernel(kernel_reading(dev, MiB, 5000, 1), compute);
    bench.device.copy_to_device(dev, 0, host, 0, 64 * MiB, copy, true, 2);
    bench.device.synchronize();
    auto h2d = bench.spans(SpanKind::h2d);
    auto kernels = bench.spans(SpanKind::kernel);
    REQUIRE(h2d.size() == 1);
    REQUIRE(kernels.size() == 2);  // the gate's and ours
    CHECK(overlap(h2d[0], kernels[1]));
}

TEST_CASE("an event never recorded counts as complete, as in CUDA") {
    Bench bench;
    Stream s = bench.device.create_stream(0);
    Event never = bench.device.create_event();
    CHECK(bench.device.ready(never));
    bench.device.wait(s, never);  // must not block the stream
    DeviceBuffer dev = bench.device.allocate_device(MiB);
    bench.device.launch_kernel(kernel_reading(dev, MiB, 10, 1), s);
    bench.device.synchronize(s);
    CHECK(bench.spans(SpanKind::kernel).size() == 1);
}

TEST_CASE("with one copy engine, an H2D and a D2H never overlap - with three they do") {
    for (int engines : {1, 3}) {
        CAPTURE(engines);
        Calibration cal = builtin_calibration();
        cal.copy_engines = engines;
        Bench bench(cal);
        GatedPair pair(bench.device, 64 * MiB);
        bench.device.copy_to_device(pair.dev, 0, pair.host, 0, 64 * MiB, pair.a, true, 1);
        bench.device.copy_to_host(pair.host, 0, pair.dev, 0, 64 * MiB, pair.b, true, 2);
        bench.device.synchronize();
        auto h2d = bench.spans(SpanKind::h2d);
        auto d2h = bench.spans(SpanKind::d2h);
        REQUIRE(h2d.size() == 1);
        REQUIRE(d2h.size() == 1);
        CHECK(overlap(h2d[0], d2h[0]) == (engines > 1));
    }
}

TEST_CASE("both directions at once share the link: about 75 GB/s in total, not 110") {
    Bench bench;
    GatedPair pair(bench.device, 256 * MiB);
    bench.device.copy_to_device(pair.dev, 0, pair.host, 0, 256 * MiB, pair.a, true, 1);
    bench.device.copy_to_host(pair.host, 0, pair.dev, 0, 256 * MiB, pair.b, true, 2);
    bench.device.synchronize();
    auto h2d = bench.spans(SpanKind::h2d);
    auto d2h = bench.spans(SpanKind::d2h);
    REQUIRE(h2d.size() == 1);
    REQUIRE(d2h.size() == 1);
    const double first_end = ns_to_s(std::min(h2d[0].end, d2h[0].end) - std::max(h2d[0].start, d2h[0].start));
    // While both run, each moves at its solo rate scaled so the two sum to the measured total.
    const double total_gbps =
        2 * 256.0 * MiB / (ns_to_s(std::max(h2d[0].end, d2h[0].end) - std::min(h2d[0].start, d2h[0].start))) *
        1e-9;
    CHECK(first_end > 0);
    CHECK(total_gbps == doctest::Approx(builtin_calibration().bidir_total_gbps).epsilon(0.05));
    CHECK(total_gbps < 0.8 * (54.0 + 55.0));
}

TEST_CASE("two H2D copies on two streams run one after the other, in issue order, as an H100's do") {
    // CUPTI never showed an H100 running two copies of one direction at once (the committed captures:
    // 425 H2D copies on three streams, each starting as the one before ended); a D2H overlaps them.
    Bench bench;
    GatedPair pair(bench.device, 64 * MiB);
    Stream third = bench.device.create_stream(2);
    bench.device.wait(third, pair.gate.open);
    bench.device.copy_to_device(pair.dev, 0, pair.host, 0, 64 * MiB, pair.a, true, 1);
    bench.device.copy_to_device(pair.dev, 0, pair.host, 0, 64 * MiB, pair.b, true, 2);
    bench.device.copy_to_host(pair.host, 0, pair.dev, 0, 64 * MiB, third, true, 3);
    bench.device.synchronize();
    auto h2d = bench.spans(SpanKind::h2d);
    auto d2h = bench.spans(SpanKind::d2h);
    REQUIRE(h2d.size() == 2);
    REQUIRE(d2h.size() == 1);
    CHECK(h2d[0].batch == 1);
    CHECK(h2d[1].start >= h2d[0].end);
    CHECK(overlap(h2d[0], d2h[0]));
    const double wall = ns_to_s(h2d[1].end - h2d[0].start);
    const Calibration& cal = builtin_calibration();
    // Each copy at its own rate, the link shared with the D2H while both move bytes: no faster than the
    // link alone, and no slower than its half of both directions at once.
    CHECK(2 * 64.0 * MiB / wall * 1e-9 <= cal.h2d_pinned.gbps(64.0 * MiB) * 1.02);
    CHECK(2 * 64.0 * MiB / wall * 1e-9 >= cal.bidir_total_gbps / 2 * 0.98);
}

// A link where a pageable copy takes twice as long as a pinned one: 256 KiB in about 0.26 s and 0.13 s.
Calibration slow_pageable_link() {
    return test_link(0.002, 0.001);
}

TEST_CASE(
    "a non_blocking copy from pinned memory returns at once - from pageable once staged, and its DMA "
    "follows") {
    Bench bench(slow_pageable_link());
    const size_t bytes = MiB / 4;  // one chunk of the driver's bounce buffer
    Stream stream = bench.device.create_stream(0);
    DeviceBuffer dev = bench.device.allocate_device(bytes);
    HostBuffer pinned = bench.device.allocate_host(bytes, HostMemory::pinned);
    HostBuffer pageable = bench.device.allocate_host(bytes, HostMemory::pageable);

    TimeNs before = now_ns();
    bench.device.copy_to_device(dev, 0, pinned, 0, bytes, stream, /*non_blocking=*/true, 1);
    const TimeNs pinned_call = now_ns() - before;
    bench.device.synchronize(stream);

    const TimeNs pageable_before = now_ns();
    bench.device.copy_to_device(dev, 0, pageable, 0, bytes, stream, /*non_blocking=*/true, 2);
    const TimeNs pageable_call = now_ns() - pageable_before;
    bench.device.synchronize(stream);

    before = now_ns();
    bench.device.copy_to_device(dev, 0, pageable, 0, bytes, stream, /*non_blocking=*/false, 3);
    const TimeNs blocking_call = now_ns() - before;

    auto h2d = bench.spans(SpanKind::h2d);
    REQUIRE(h2d.size() == 3);
    CHECK(pinned_call < h2d[0].duration() / 4);  // returned long before the copy ended
    // Pageable: held while this host stages it (a quarter MiB: under a millisecond, tens of them under
    // TSan), then let go while its DMA goes on at the pinned rate (0.13 s here), as CUDA's is; the engine's
    // span is that DMA alone, after the staging.
    const auto dma = static_cast<TimeNs>(slow_pageable_link().h2d_pinned.seconds(bytes) * 1e9);
    CHECK(pageable_before + pageable_call < h2d[1].end);  // let go before its DMA ended
    CHECK(h2d[1].duration() == doctest::Approx(static_cast<double>(dma)).epsilon(0.01));
    CHECK(h2d[1].start >= pageable_before);
    CHECK(h2d[1].start <= pageable_before + pageable_call);  // the DMA follows the staging
    CHECK(blocking_call >= dma);  // without non_blocking, the caller waits for all of it
    CHECK(blocking_call >= h2d[2].duration());
}

TEST_CASE("a blocking copy from pinned memory waits for the copy") {
    Bench bench(slow_link());
    Stream stream = bench.device.create_stream(0);
    DeviceBuffer dev = bench.device.allocate_device(MiB / 4);
    HostBuffer pinned = bench.device.allocate_host(MiB / 4, HostMemory::pinned);
    const TimeNs before = now_ns();
    bench.device.copy_to_device(dev, 0, pinned, 0, MiB / 4, stream, /*non_blocking=*/false, 1);
    const TimeNs call = now_ns() - before;
    auto h2d = bench.spans(SpanKind::h2d);
    REQUIRE(h2d.size() == 1);
    CHECK(call >= h2d[0].duration());
}

TEST_CASE("GPU spans land on the lanes of their stream's index") {
    Bench bench;
    Stream s = bench.device.create_stream(3);
    DeviceBuffer dev = bench.device.allocate_device(MiB);
    HostBuffer host = bench.device.allocate_host(MiB, HostMemory::pinned);
    bench.device.copy_to_device(dev, 0, host, 0, MiB, s, true, 9);
    bench.device.launch_kernel(kernel_reading(dev, MiB, 10, 9), s);
    bench.device.copy_to_host(host, 0, dev, 0, MiB, s, true, 9);
    bench.device.synchronize();
    bench.trace.collect(bench.store);
    for (auto [kind, name] : {std::pair{SpanKind::h2d, "stream 3 H2D"},
                              {SpanKind::kernel, "stream 3 kernel"},
                              {SpanKind::d2h, "stream 3 D2H"}}) {
        auto spans = bench.spans(kind);
        REQUIRE(spans.size() == 1);
        CHECK(bench.store.lane_info(spans[0].lane)->name == name);
        CHECK(bench.store.lane_info(spans[0].lane)->group == LaneGroup::device);
    }
}

TEST_CASE("the device counts its live resources and they return to zero") {
    Trace trace;
    SimDevice device(trace);
    {
        HostBuffer a = device.allocate_host(MiB, HostMemory::pinned);
        HostBuffer b = device.allocate_host(2 * MiB, HostMemory::pageable);
        DeviceBuffer d = device.allocate_device(MiB);
        Stream s = device.create_stream(0);
        Event e = device.create_event();
        DeviceResources r = device.resources();
        CHECK(r.host_buffers == 2);
        CHECK(r.pinned_bytes == static_cast<int64_t>(MiB));
        CHECK(r.pageable_bytes == static_cast<int64_t>(2 * MiB));
        CHECK(r.device_buffers == 1);
        CHECK(r.streams == 1);
        CHECK(r.events == 1);
        HostBuffer moved = std::move(a);  // a move hands over, it does not double count
        CHECK(device.resources().host_buffers == 2);
    }
    check_nothing_held(device.resources());
}

TEST_CASE("a calibration file with a missing direction is rejected with a clear message") {
    auto json = nlohmann::json::parse(
        R"({"format": "pinscope-calibration/1", "copy_bandwidth_GBps": {"h2d_pinned_1MB": 40}})");
    CHECK_THROWS_WITH_AS(calibration_from_json(json, "x.json"),
                         doctest::Contains("no \"h2d_pageable_<N>MB\" figures"), CalibrationError);
    CHECK_THROWS_AS(calibration_from_json(nlohmann::json::parse("[]"), "x.json"), CalibrationError);
    CHECK_THROWS_AS(load_calibration("/nonexistent/cal.json"), CalibrationError);
}

namespace {
// The least a calibration file holds: its format and one size of each direction and memory kind.
nlohmann::json smallest_calibration_json() {
    return nlohmann::json::parse(R"({"format": "pinscope-calibration/1",
        "copy_bandwidth_GBps": {"h2d_pinned_1MB": 20, "h2d_pageable_1MB": 8, "d2h_pinned_1MB": 21,
        "d2h_pageable_1MB": 6}})");
}
}  // namespace

TEST_CASE(
    "a calibration field of the wrong type or a copy of 0 MB is an error, and no key crashes the reader") {
    const auto with = [](const char* key, nlohmann::json value) {
        nlohmann::json json = smallest_calibration_json();
        if (std::string(key).ends_with("MB"))
            json["copy_bandwidth_GBps"][key] = value;
        else
            json[key] = value;
        return json;
    };
    CHECK_THROWS_WITH_AS(calibration_from_json(with("name", 2.5), "x.json"),
                         "calibration x.json: name should be a string.", CalibrationError);
    CHECK_THROWS_WITH_AS(
        calibration_from_json(with("copy_engines", "3"), "x.json"),
        "calibration x.json: copy_engines should be between 1 and 16; measure the GPU again with "
        "`pinscope probe`.",
        CalibrationError);
    CHECK_THROWS_AS(calibration_from_json(with("copy_engines", 1e30), "x.json"), CalibrationError);
    // A point at 0 bytes made the curve between it and the next size NaN.
    CHECK_THROWS_WITH_AS(calibration_from_json(with("h2d_pinned_0MB", 30), "x.json"),
                         doctest::Contains("\"h2d_pinned_0MB\" should be for a copy of at least 1 MB"),
                         CalibrationError);
    // std::regex recursed once per digit and overflowed the stack; so long a key is not a figure.
    const std::string long_key = "h2d_pinned_" + std::string(60'000, '1') + "MB";
    CHECK(calibration_from_json(with(long_key.c_str(), 30), "x.json").h2d_pinned.points().size() == 1);
}

TEST_CASE("the share of the link an H2D copy keeps follows the host's writes, checked on reading") {
    const auto with = [](nlohmann::json shares) {
        nlohmann::json json = smallest_calibration_json();
        json["h2d_under_host_writes"] = shares;
        return calibration_from_json(json, "x.json");
    };
    const Calibration c = with(nlohmann::json::parse(
        R"([{"host_write_GBps": 140, "h2d_share": 0.5}, {"host_write_GBps": 40, "h2d_share": 0.9}])"));
    CHECK(c.h2d_share_under_writes(0) == doctest::Approx(1));
    CHECK(c.h2d_share_under_writes(20) == doctest::Approx(0.95));   // halfway to the first point
    CHECK(c.h2d_share_under_writes(90) == doctest::Approx(0.7));    // halfway between the two
    CHECK(c.h2d_share_under_writes(1000) == doctest::Approx(0.5));  // no guess past the last
    CHECK(Calibration{}.h2d_share_under_writes(1000) == 1);         // not measured: no cost
    CHECK_THROWS_WITH_AS(with(nlohmann::json::parse(R"([{"host_write_GBps": 40, "h2d_share": 1.5}])")),
                         doctest::Contains("h2d_under_host_writes's h2d_share should be between 0.05 and 1"),
                         CalibrationError);
    CHECK_THROWS_WITH_AS(with(nlohmann::json::parse(R"([{"host_write_GBps": 40}])")),
                         doctest::Contains("should have \"host_write_GBps\" and \"h2d_share\""),
                         CalibrationError);
    CHECK_THROWS_AS(with("fast"), CalibrationError);
    CHECK_THROWS_AS(
        with(nlohmann::json::array({nlohmann::json::parse(R"({"host_write_GBps": -1, "h2d_share": 1})")})),
        CalibrationError);
}

TEST_CASE("the share both directions at once keep under the host's writes is read as the H2D's is") {
    nlohmann::json json = smallest_calibration_json();
    json["bidir_under_host_writes"] = nlohmann::json::parse(
        R"([{"host_write_GBps": 40, "bidir_share": 0.8}, {"host_write_GBps": 20, "bidir_share": 0.9}])");
    const Calibration c = calibration_from_json(json, "x.json");
    CHECK(c.bidir_share_under_writes(10) == doctest::Approx(0.95));
    CHECK(c.bidir_share_under_writes(30) == doctest::Approx(0.85));
    CHECK(c.bidir_share_under_writes(400) == doctest::Approx(0.8));
    CHECK(c.h2d_under_host_writes.empty());  // one curve does not stand in for the other
    CHECK(Calibration{}.bidir_share_under_writes(400) == 1);
    json["bidir_under_host_writes"] = nlohmann::json::parse(R"([{"host_write_GBps": 40, "h2d_share": 0.8}])");
    CHECK_THROWS_WITH_AS(calibration_from_json(json, "x.json"),
                         doctest::Contains("should have \"host_write_GBps\" and \"bidir_share\""),
                         CalibrationError);
    json["bidir_under_host_writes"] = nlohmann::json::parse(R"([{"host_write_GBps": 40, "bidir_share": 0}])");
    CHECK_THROWS_WITH_AS(
        calibration_from_json(json, "x.json"),
        doctest::Contains("bidir_under_host_writes's bidir_share should be between 0.05 and 1"),
        CalibrationError);
}

TEST_CASE("a calibration's pageable staging figures are read strictly, each error naming its key") {
    const auto message = [](nlohmann::json staging) {
        nlohmann::json json = smallest_calibration_json();
        json["pageable_h2d_staging"] = std::move(staging);
        try {
            return std::to_string(calibration_from_json(json, "x.json").pageable_h2d_staging.size());
        } catch (const CalibrationError& e) {
            return std::string(e.what());
        }
    };
    CHECK(message({{{"bytes", 4096}, {"driver_us", -1}, {"memcpy_us", 0}}}) ==
          "calibration x.json: pageable_h2d_staging's driver_us should be between 0 and 1000000 us; measure "
          "the GPU again with `pinscope probe`.");
    CHECK(message({{{"bytes", 0}, {"driver_us", 3}, {"memcpy_us", 0}}}).find("bytes should be between") !=
          std::string::npos);
    CHECK(message({{{"bytes", 4096}, {"driver_us", 3}}}).find("should have \"bytes\", \"driver_us\"") !=
          std::string::npos);
    CHECK(message("fast").find("should be a list of at most 16") != std::string::npos);
    CHECK(message(nlohmann::json::array()) == "0");
    CHECK(message({{{"bytes", 4096}, {"driver_us", 3}, {"memcpy_us", 0.5}}}) == "1");
}

TEST_CASE(
    "a pageable H2D holds its caller for the driver's staging over its own memcpy, by the calibration") {
    // A link fast enough that the bytes cost nothing next to a driver whose staging the calibration says
    // takes 300 ms more than this host's memcpy: the caller is held at least that long, and without the
    // figure (its fixed costs 0) well under it.
    const auto blocking_copy_s = [](std::vector<Calibration::StagingPoint> staging) {
        Calibration link = test_link(50, 20);
        link.pageable_h2d_staging = std::move(staging);
        Bench bench(link);
        PinnedAndPageable b(bench.device, 64 * 1024);
        auto& [stream, dst, pinned, pageable] = b;
        const TimeNs called = now_ns();
        bench.device.copy_to_device(dst, 0, pageable, 0, 64 * 1024, stream, /*non_blocking=*/false, 1);
        return ns_to_s(now_ns() - called);
    };
    const double charged = blocking_copy_s({{4096, 300'000, 0}});
    const double plain = blocking_copy_s({});
    CAPTURE(charged);
    CAPTURE(plain);
    CHECK(charged >= 0.3);
    CHECK(plain < 0.15);
}

TEST_CASE("H2D copies back to back slow down as the calibration says the host's writes slow the link") {
    // 10 MiB copies over a 10 GB/s link, 1 ms each alone; the host writes what they send, and at 10 GB/s
    // of writes a copy keeps half its rate. Back to back the load settles where the copies' rate is the
    // load: r = 10 * (1 - 0.05 r) GB/s, so r = 6.7 GB/s and a copy takes 1.5 ms. The first copy has
    // nothing before it (only half its own bytes in the load) and moves at nearly the idle rate.
    constexpr size_t kBytes = 10 * MiB;
    // `count` copies of kBytes on one stream, back to back, on a device with `calibration`: their spans.
    const auto back_to_back = [](Calibration calibration, int count) {
        Bench bench(std::move(calibration));
        Stream stream = bench.device.create_stream(0);
        DeviceBuffer dst = bench.device.allocate_device(kBytes);
        HostBuffer src = bench.device.allocate_host(kBytes, HostMemory::pinned);
        for (int i = 0; i < count; ++i) bench.device.copy_to_device(dst, 0, src, 0, kBytes, stream, true, i);
        bench.device.synchronize();
        return bench.spans(SpanKind::h2d);
    };
    Calibration c = test_link(10, 1);
    c.h2d_under_host_writes = {{10, 0.5}};
    constexpr int kCopies = 60;  // 90 ms: nine times the load's averaging time
    const auto copies = back_to_back(c, kCopies);
    REQUIRE(copies.size() == kCopies);
    const double alone = static_cast<double>(kBytes) / 10e9;
    CHECK(seconds(copies.front()) == within(alone, 0.04));
    CHECK(seconds(copies.back()) == within(1.5 * alone, 0.04));

    // The same copies with a device that was not told of a cost: every one at the idle rate.
    for (const Span& copy : back_to_back(test_link(10, 1), 10)) CHECK(seconds(copy) == within(alone, 0.02));
}

TEST_CASE("D2H copies write host memory, and the H2D copies beside them slow down as the host's writes say") {
    // The link of the test above, its curve going on down: 0.5 of the rate at 10 GB/s of writes, 0.25 at
    // 30. D2H copies on another stream move 10 GB/s into host memory, back to back, unslowed; the H2D
    // copies' load is their own rate r and the D2H's 10: r = 10 * (0.5 - 0.0125 r), so r = 4.44 GB/s and a
    // copy takes 2.25 times its idle time (1.5 times with no D2H beside it: the test above).
    constexpr size_t kBytes = 10 * MiB;
    Calibration c = test_link(10, 1);
    c.h2d_under_host_writes = {{10, 0.5}, {30, 0.25}};
    Bench bench(std::move(c));
    Stream up = bench.device.create_stream(0), down = bench.device.create_stream(1);
    DeviceBuffer to = bench.device.allocate_device(kBytes), from = bench.device.allocate_device(kBytes);
    HostBuffer src = bench.device.allocate_host(kBytes, HostMemory::pinned);
    HostBuffer dst = bench.device.allocate_host(kBytes, HostMemory::pinned);
    for (int i = 0; i < 60; ++i) {  // the D2H copies alone take 63 ms, six times the load's averaging
        bench.device.copy_to_device(to, 0, src, 0, kBytes, up, true, i);
        bench.device.copy_to_host(dst, 0, from, 0, kBytes, down, true, i);
    }
    bench.device.synchronize();
    const std::vector<Span> h2d = bench.spans(SpanKind::h2d), d2h = bench.spans(SpanKind::d2h);
    REQUIRE(h2d.size() == 60);
    REQUIRE(d2h.size() == 60);
    const double alone = static_cast<double>(kBytes) / 10e9;
    for (const Span& copy : d2h) CHECK(seconds(copy) == within(alone, 0.02));
    // H2D copies 15 to 20 start 33 to 45 ms in: the load settled, the D2H copies still running.
    for (int i = 15; i <= 20; ++i) {
        REQUIRE(h2d[i].end < d2h.back().end);
        CHECK(seconds(h2d[i]) == within(2.25 * alone, 0.04));
    }
}

TEST_CASE("both directions at once lose to the host's writes as the probe measured the pair lose") {
    // Each direction 10 GB/s alone, 15 in all at once on the idle host, the pair keeping 0.5 of that at 10
    // GB/s of the cores' writes (the H2D's bytes: the workers wrote what they send), the H2D alone losing
    // nothing. Both ways back to back, each gets half the pair's total: r = 7.5 * (1 - 0.05 r), so r = 5.45
    // GB/s, 1.83 times a copy's idle time. Before the probe measured the pair (no curve), the D2H's writes
    // loaded the H2D copies through h2d_under_host_writes, here empty: r = 7.5, 1.33 times.
    constexpr size_t kBytes = 10 * MiB;
    const auto both_ways = [](Calibration c) {
        Bench bench(std::move(c));
        Stream up = bench.device.create_stream(0), down = bench.device.create_stream(1);
        DeviceBuffer to = bench.device.allocate_device(kBytes), from = bench.device.allocate_device(kBytes);
        HostBuffer src = bench.device.allocate_host(kBytes, HostMemory::pinned);
        HostBuffer dst = bench.device.allocate_host(kBytes, HostMemory::pinned);
        for (int i = 0; i < 60; ++i) {
            bench.device.copy_to_device(to, 0, src, 0, kBytes, up, true, i);
            bench.device.copy_to_host(dst, 0, from, 0, kBytes, down, true, i);
        }
        bench.device.synchronize();
        return std::pair{bench.spans(SpanKind::h2d), bench.spans(SpanKind::d2h)};
    };
    Calibration c = test_link(10, 1);
    c.bidir_total_gbps = 15;
    const double alone = static_cast<double>(kBytes) / 10e9;
    {
        const auto [h2d, d2h] = both_ways(c);
        REQUIRE(h2d.size() == 60);
        for (int i = 15; i <= 40; i += 5) CHECK(seconds(h2d[i]) == within(1.333 * alone, 0.02));
    }
    c.bidir_under_host_writes = {{10, 0.5}};
    const auto [h2d, d2h] = both_ways(c);
    REQUIRE(h2d.size() == 60);
    REQUIRE(d2h.size() == 60);
    for (int i = 15; i <= 40; i += 5) {  // the load settled (over 30 ms in), both still moving
        CHECK(seconds(h2d[i]) == within(1.833 * alone, 0.04));
        CHECK(seconds(d2h[i]) == within(1.833 * alone, 0.04));
    }
}

TEST_CASE("the anchors file of the H100 loads as a calibration") {
    // shared/anchors has the same keys; the built-in copy adds copy_engines and latency.
    const Calibration& cal = builtin_calibration();
    CHECK(cal.copy_engines == 3);
    CHECK(cal.bidir_total_gbps == doctest::Approx(75.13));
    CHECK(cal.h2d_pinned.points().size() == 4);
}

TEST_CASE("a pageable copy spends the caller's CPU staging the bytes - a pinned one does not") {
    Bench bench;
    PinnedAndPageable b(bench.device, 64 * MiB);
    auto& [stream, dst, pinned, pageable] = b;

    TimeNs before = thread_cpu_ns();
    bench.device.copy_to_device(dst, 0, pinned, 0, 64 * MiB, stream, /*non_blocking=*/true, 1);
    const TimeNs pinned_cpu = thread_cpu_ns() - before;
    bench.device.synchronize(stream);

    before = thread_cpu_ns();
    bench.device.copy_to_device(dst, 0, pageable, 0, 64 * MiB, stream, /*non_blocking=*/true, 2);
    const TimeNs pageable_cpu = thread_cpu_ns() - before;

    CAPTURE(pinned_cpu);
    CAPTURE(pageable_cpu);
    // Copying 64 MiB takes a core well over a millisecond at any memcpy speed a host reaches today.
    CHECK(pageable_cpu > 1 * kNsPerMs);
    CHECK(pageable_cpu > 10 * pinned_cpu);
}

TEST_CASE("a D2H into pageable memory is drawn for the engine's part: staging out is the host's") {
    // 16 MiB back into pageable memory: the host copies them out of the bounce buffer for milliseconds
    // after the engine has moved them, and that is its own time, not the copy engine's.
    Bench bench;
    PinnedAndPageable b(bench.device, 16 * MiB);
    auto& [stream, src, pinned, pageable] = b;
    const TimeNs called = now_ns();
    bench.device.copy_to_host(pageable, 0, src, 0, 16 * MiB, stream, /*non_blocking=*/false, 1);
    const TimeNs returned = now_ns();
    const std::vector<Span> copies = bench.spans(SpanKind::d2h);
    REQUIRE(copies.size() == 1);
    // The engine moves the bytes into the bounce buffers at the pinned rate (engine_rules.h).
    const double engine = builtin_calibration().d2h_pinned.seconds(16.0 * MiB);
    CHECK(seconds(copies[0]) == within(engine, 1e-3));
    CHECK(copies[0].start >= called);
    CHECK(copies[0].end <= returned);  // the call returned only once the host had staged the bytes out
}

TEST_CASE("staging to the host writes every byte of the destination, from the bounce buffer") {
    std::vector<std::byte> host(5 * PageableStaging::kChunkBytes + 123, std::byte{7});
    PageableStaging::stage(host.data(), host.size(), StagingDirection::to_host);
    CHECK(std::count(host.begin(), host.end(), std::byte{7}) ==
          0);  // every byte came from the bounce buffer, which never held a 7
}

// Where a buffer starts in its page sets how fast a memcpy runs between it and another: on this project's
// VM 384 KiB went 1.8 GB/s into a bounce buffer 16 bytes into its page (make_unique's) from a page-aligned
// batch, and 20 into a page-aligned one.
TEST_CASE("every thread's bounce buffer starts on a page, as the batches it copies do") {
    const auto page_offset = [](const std::byte* p) {
        return reinterpret_cast<uintptr_t>(p) % kHostPageBytes;
    };
    CHECK(page_offset(PageableStaging::bounce_buffer()) == 0);
    uintptr_t fresh_offset = 1;
    std::ptrdiff_t fresh_zeros = 0;
    std::thread([&] {
        const std::byte* bounce = PageableStaging::bounce_buffer();
        fresh_offset = page_offset(bounce);
        fresh_zeros = std::count(bounce, bounce + PageableStaging::kChunkBytes, std::byte{0});
    }).join();
    CHECK(fresh_offset == 0);
    CHECK(fresh_zeros == static_cast<std::ptrdiff_t>(PageableStaging::kChunkBytes));  // written: resident
}

TEST_CASE("page-aligned vectors start on a page at every size, and grow onto pages too") {
    for (size_t bytes : {size_t{1}, size_t{4095}, size_t{4097}, size_t{3} << 20}) {
        PageAlignedBytes buffer(bytes);
        CHECK(reinterpret_cast<uintptr_t>(buffer.data()) % kHostPageBytes == 0);
        buffer.resize(bytes * 3 + 17);
        CHECK(reinterpret_cast<uintptr_t>(buffer.data()) % kHostPageBytes == 0);
    }
}

namespace {

// A calibration whose start-up figures are long enough to tell apart from scheduling noise.
Calibration with_startup_costs() {
    Calibration c = builtin_calibration();
    c.context_create_s = 0.06;
    c.pin_alloc_256MB_s = 0.128;  // 0.5 ms a MiB
    c.device_alloc_s = 0.002;
    return c;
}

std::vector<Span> startup_spans(Trace& trace, TraceStore& store) {
    trace.collect(store);
    std::vector<Span> found;
    for (const LaneInfo& lane : store.lanes())
        for (const Span& s : store.spans(lane.id))
            if (s.kind == SpanKind::startup) found.push_back(s);
    std::sort(found.begin(), found.end(), [](const Span& a, const Span& b) { return a.start < b.start; });
    return found;
}

}  // namespace

TEST_CASE("a cold device makes its context once, at the first call of any thread, and the others wait") {
    Trace trace;
    TraceStore store;
    SimDevice device(trace, with_startup_costs(), 1, 0, /*cold_start=*/true);
    const LaneId first_lane = trace.lanes().lane(LaneRole::worker, 0);
    const LaneId second_lane = trace.lanes().lane(LaneRole::pin);
    TimeNs second_returned = 0;
    std::thread first([&] {
        this_thread_lane() = first_lane;
        Stream stream = device.create_stream(0);
    });
    std::thread second([&] {
        this_thread_lane() = second_lane;
        DeviceBuffer buffer = device.allocate_device(1 << 20);
        second_returned = now_ns();
    });
    first.join();
    second.join();
    const std::vector<Span> spans = startup_spans(trace, store);
    int contexts = 0;
    for (const Span& s : spans)
        if (store.name(s.name).starts_with("CUDA context")) {
            ++contexts;
            CHECK(s.duration() >= 60 * kNsPerMs);
            CHECK((s.lane == first_lane || s.lane == second_lane));
            CHECK(second_returned >= s.end);  // the allocation waited for the context, wherever it was made
        }
    CHECK(contexts == 1);
    // The device allocation is its own start-up span, after the context, on its thread's lane.
    const auto malloc_span = std::find_if(spans.begin(), spans.end(), [&](const Span& s) {
        return store.name(s.name).starts_with("cudaMalloc");
    });
    REQUIRE(malloc_span != spans.end());
    CHECK(malloc_span->lane == second_lane);
    CHECK(malloc_span->duration() >= 2 * kNsPerMs);
}

TEST_CASE("a cold device's fresh pinned allocation costs in proportion to its size, a pageable one nothing") {
    Trace trace;
    TraceStore store;
    SimDevice device(trace, with_startup_costs(), 1, 0, /*cold_start=*/true);
    this_thread_lane() = trace.lanes().lane(LaneRole::main);
    HostBuffer pageable = device.allocate_host(32 << 20, HostMemory::pageable);
    CHECK(startup_spans(trace, store).empty());  // malloc needs no driver: the context is not made yet
    HostBuffer small = device.allocate_host(8 << 20, HostMemory::pinned);
    HostBuffer large = device.allocate_host(32 << 20, HostMemory::pinned);
    const std::vector<Span> spans = startup_spans(trace, store);
    REQUIRE(spans.size() == 3);  // the context (pinning is the first CUDA call), then two cudaHostAllocs
    CHECK(store.name(spans[0].name).starts_with("CUDA context"));
    CHECK(store.name(spans[1].name).starts_with("cudaHostAlloc"));
    CHECK(spans[1].duration() >= 4 * kNsPerMs);   // 8 MiB at 0.5 ms a MiB
    CHECK(spans[2].duration() >= 16 * kNsPerMs);  // 32 MiB
    CHECK(spans[0].end <= spans[1].start);
    this_thread_lane() = kNoLane;
}

TEST_CASE("a warm device (the default) records no start-up work") {
    Trace trace;
    TraceStore store;
    SimDevice device(trace, with_startup_costs());
    Stream stream = device.create_stream(0);
    HostBuffer pinned = device.allocate_host(8 << 20, HostMemory::pinned);
    DeviceBuffer buffer = device.allocate_device(8 << 20);
    CHECK(startup_spans(trace, store).empty());
}

TEST_CASE("the naive benchmark's fresh process is read strictly: known kinds, times in order") {
    const nlohmann::json good = {
        {"steps",
         {{{"what", "CUDA context"}, {"kind", "startup"}, {"start", 100}, {"end", 200}},
          {{"what", "copy"}, {"kind", "h2d"}, {"start", 150}, {"end", 300}}}}};
    const std::vector<NaiveCopyStep> steps = naive_copy_steps(good);
    REQUIRE(steps.size() == 2);
    CHECK(steps[0].kind == SpanKind::startup);
    CHECK(steps[1].end == 300);
    nlohmann::json backwards = good;
    backwards["steps"][1]["end"] = 10;
    CHECK_THROWS_AS(naive_copy_steps(backwards), DeviceError);
    nlohmann::json unknown = good;
    unknown["steps"][0]["kind"] = "kernel";  // the child launches nothing
    CHECK_THROWS_AS(naive_copy_steps(unknown), DeviceError);
    CHECK_THROWS_AS(naive_copy_steps(nlohmann::json::array()), DeviceError);
    CHECK_THROWS_AS(naive_copy_steps({{"steps", {{{"what", 3}}}}}), DeviceError);
    set_fresh_process_program("");
    CHECK_THROWS_WITH_AS(run_naive_copy_in_fresh_process(NaiveCopyRequest{}),
                         doctest::Contains("fresh pinscope process"), DeviceError);
}
