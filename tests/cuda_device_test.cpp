// The CUDA device on a real GPU: stream order, pinned and pageable copies as CUPTI sees them, batch ids
// on every GPU span, the kernel's calibrated duration, the CUDA-event fallback, two GPUs sharing CUPTI,
// and resources that all come back. Without a GPU (CI) each test says "skipped: no CUDA device" and
// passes.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <thread>

#include "core/device/cuda/cuda_device.h"
#include "core/device/device_factory.h"
#include "core/device/naive_copy.h"
#include "core/lab/measured_run.h"
#include "core/pipeline/data_loader.h"
#include "core/pipeline/dataset.h"
#include "core/pipeline/train_loop.h"
#include "tests/leak_checks.h"

using namespace pinscope;
using namespace pinscope::testing;

namespace {

constexpr size_t MiB = 1 << 20;

bool gpu_present() {
    static const bool present = cuda_device_count() > 0;
    return present;
}

#define SKIP_WITHOUT_GPU()                      \
    do {                                        \
        if (!gpu_present()) {                   \
            MESSAGE("skipped: no CUDA device"); \
            return;                             \
        }                                       \
    } while (false)

struct GpuBench {
    Trace trace;
    std::string tracing;
    std::unique_ptr<Device> device;
    TraceStore store;

    explicit GpuBench(bool cupti = true) {
        CudaDeviceOptions options;
        options.cupti = cupti;
        device = make_cuda_device(trace, options, &tracing);
    }

    // Every GPU span recorded so far, oldest first. Call after device->synchronize().
    std::vector<Span> gpu_spans() {
        trace.collect(store);
        std::vector<Span> found;
        for (const LaneInfo& lane : store.lanes())
            if (lane.group == LaneGroup::device)
                for (const Span& s : store.spans(lane.id)) found.push_back(s);
        std::sort(found.begin(), found.end(), [](const Span& a, const Span& b) { return a.start < b.start; });
        return found;
    }
    const LaneInfo* lane(LaneId id) { return store.lane_info(id); }
};

KernelWork kernel_work(const DeviceBuffer& input, DeviceBuffer& output, double us, int64_t batch) {
    KernelWork work;
    work.input = &input;
    work.input_bytes = input.size();
    work.output = &output;
    work.output_bytes = output.size();
    work.duration_us = us;
    work.batch = batch;
    return work;
}

// Three batches through one stream: H2D, kernel, D2H each, from the memory kind given.
void run_three_batches(GpuBench& bench, HostMemory memory) {
    Device& d = *bench.device;
    Stream stream = d.create_stream(1);
    HostBuffer host = d.allocate_host(8 * MiB, memory);
    HostBuffer result = d.allocate_host(4096, memory);
    DeviceBuffer input = d.allocate_device(8 * MiB), output = d.allocate_device(4096);
    for (int64_t batch = 10; batch < 13; ++batch) {
        d.copy_to_device(input, 0, host, 0, 8 * MiB, stream, true, batch);
        d.launch_kernel(kernel_work(input, output, 200, batch), stream);
        d.copy_to_host(result, 0, output, 0, 4096, stream, true, batch);
    }
    d.synchronize();
}

}  // namespace

TEST_CASE("on the GPU, a stream's copies and kernels run in issue order and never overlap") {
    SKIP_WITHOUT_GPU();
    GpuBench bench;
    run_three_batches(bench, HostMemory::pinned);
    const std::vector<Span> spans = bench.gpu_spans();
    REQUIRE(spans.size() == 9);
    const SpanKind expected[3] = {SpanKind::h2d, SpanKind::kernel, SpanKind::d2h};
    for (size_t i = 0; i < spans.size(); ++i) {
        CHECK(spans[i].kind == expected[i % 3]);
        CHECK(spans[i].batch == 10 + static_cast<int64_t>(i / 3));
        CHECK(spans[i].end >= spans[i].start);
        if (i > 0) CHECK(spans[i].start >= spans[i - 1].end);
        CHECK(bench.lane(spans[i].lane)->index == 1);  // the lanes of stream index 1
    }
}

// transfer_dtype uint8: the GPU's normalize kernel makes the floats the host's collate makes for float32,
// bit for bit, for a whole batch and for a chunk that starts inside a sample.
TEST_CASE("on the GPU, a uint8 batch is normalised into the floats the host would have made") {
    SKIP_WITHOUT_GPU();
    GpuBench bench;
    Device& d = *bench.device;
    PipelineConfig config;
    config.sample_shape.dims = {3, 40, 40};
    config.batch_size = 4;
    const int64_t elements = config.sample_shape.elements() * config.batch_size;
    std::vector<float> expected(static_cast<size_t>(elements));
    HostBuffer pixels = d.allocate_host(static_cast<size_t>(elements), HostMemory::pinned);
    const std::atomic<bool> stop{false};
    {
        const SyntheticImageDataset as_floats(config);
        config.transfer_dtype = TransferDtype::uint8;
        const SyntheticImageDataset as_bytes(config);
        const int64_t sample = config.sample_shape.elements();
        for (int64_t k = 0; k < config.batch_size; ++k) {
            as_floats.fetch(k, reinterpret_cast<std::byte*>(expected.data() + k * sample), stop);
            as_bytes.fetch(k, pixels.data() + k * sample, stop);
        }
    }
    Stream stream = d.create_stream(0);
    DeviceBuffer input = d.allocate_device(static_cast<size_t>(elements));
    DeviceBuffer output = d.allocate_device(static_cast<size_t>(elements) * 4);
    HostBuffer back = d.allocate_host(static_cast<size_t>(elements) * 4, HostMemory::pinned);
    d.copy_to_device(input, 0, pixels, 0, static_cast<size_t>(elements), stream, true, 1);
    // Two chunks, the second starting 1000 pixels into the first sample's second channel plane.
    constexpr size_t kSplit = 1600 + 1000;
    for (const auto& [from, count] :
         {std::pair<size_t, size_t>{0, kSplit},
          std::pair<size_t, size_t>{kSplit, static_cast<size_t>(elements) - kSplit}}) {
        KernelWork work;
        work.input = &input;
        work.input_offset = from;
        work.input_bytes = count;
        work.output = &output;
        work.output_offset = from * 4;
        work.output_bytes = count * 4;
        work.batch = 1;
        NormalizeWork& where = work.normalize.emplace();
        where.first_element = static_cast<int64_t>(from);
        where.sample_elements = config.sample_shape.elements();
        where.channel_elements = 1600;
        d.launch_kernel(work, stream);
    }
    d.copy_to_host(back, 0, output, 0, static_cast<size_t>(elements) * 4, stream, false, 1);
    const auto* made = reinterpret_cast<const float*>(back.data());
    int64_t different = 0;
    for (int64_t i = 0; i < elements; ++i) different += made[i] != expected[static_cast<size_t>(i)];
    CHECK(different == 0);
    // Its spans are kernels of the batch, on the stream's lane.
    d.synchronize();
    int kernels = 0;
    for (const Span& s : bench.gpu_spans()) kernels += s.kind == SpanKind::kernel && s.batch == 1;
    CHECK(kernels == 2);
}

TEST_CASE("CUPTI marks copies from pinned memory pinned and from pageable memory pageable") {
    SKIP_WITHOUT_GPU();
    for (HostMemory memory : {HostMemory::pinned, HostMemory::pageable}) {
        CAPTURE(host_memory_name(memory));
        GpuBench bench;
        const auto report = cuda_trace_report(*bench.device);
        REQUIRE(report);
        if (!report->cupti) {
            MESSAGE("CUPTI not usable here: " << report->method);
            continue;
        }
        run_three_batches(bench, memory);
        int copies = 0;
        for (const Span& s : bench.gpu_spans())
            if (s.kind != SpanKind::kernel) {
                ++copies;
                CHECK(s.memory == memory);
            }
        CHECK(copies == 6);
    }
}

TEST_CASE("every GPU span carries the batch id its copy or kernel was issued with") {
    SKIP_WITHOUT_GPU();
    GpuBench bench;
    Device& d = *bench.device;
    std::vector<Stream> streams;
    for (int s = 0; s < 3; ++s) streams.push_back(d.create_stream(s));
    HostBuffer host = d.allocate_host(MiB, HostMemory::pinned),
               result = d.allocate_host(4096, HostMemory::pinned);
    DeviceBuffer input = d.allocate_device(MiB), output = d.allocate_device(4096);
    std::map<int64_t, int> issued;
    for (int64_t batch = 100; batch < 160; ++batch) {
        Stream& stream = streams[static_cast<size_t>(batch % 3)];
        d.copy_to_device(input, 0, host, 0, MiB, stream, true, batch);
        d.launch_kernel(kernel_work(input, output, 5, batch), stream);
        d.copy_to_host(result, 0, output, 0, 4096, stream, true, batch);
        issued[batch] = static_cast<int>(batch % 3);
    }
    d.synchronize();
    std::map<int64_t, int> spans_of;
    for (const Span& s : bench.gpu_spans()) {
        REQUIRE(issued.count(s.batch) == 1);
        CHECK(bench.lane(s.lane)->index == issued[s.batch]);
        ++spans_of[s.batch];
    }
    CHECK(spans_of.size() == issued.size());
    for (const auto& [batch, count] : spans_of) CHECK(count == 3);
    const auto report = cuda_trace_report(d);
    CHECK(report->dropped == 0);
    CHECK(report->untimed == 0);
    CHECK(report->uncorrelated == 0);
}

TEST_CASE("the compute kernel lasts about kernel_us on the GPU it runs on") {
    SKIP_WITHOUT_GPU();
    GpuBench bench;
    Device& d = *bench.device;
    Stream stream = d.create_stream(0);
    DeviceBuffer input = d.allocate_device(MiB), output = d.allocate_device(4096);
    for (double us : {10.0, 100.0, 1000.0, 5000.0})  // 10 us: the CIFAR-like workload's kernel
        d.launch_kernel(kernel_work(input, output, us, static_cast<int64_t>(us)), stream);
    d.synchronize();
    int kernels = 0;
    for (const Span& s : bench.gpu_spans()) {
        if (s.kind != SpanKind::kernel) continue;
        ++kernels;
        const double ratio = static_cast<double>(s.duration()) / (static_cast<double>(s.batch) * 1e3);
        CAPTURE(s.batch);
        CHECK(ratio > 0.8);  // clocks can change between calibration and use; the margin is wide on purpose
        CHECK(ratio < 1.25);
    }
    CHECK(kernels == 4);
}

TEST_CASE("without CUPTI, CUDA events time the GPU spans and they keep their batch ids") {
    SKIP_WITHOUT_GPU();
    GpuBench bench(/*cupti=*/false);
    CHECK(bench.tracing.find("CUDA events") != std::string::npos);
    CHECK(!cuda_trace_report(*bench.device)->cupti);
    run_three_batches(bench, HostMemory::pinned);
    const std::vector<Span> spans = bench.gpu_spans();
    REQUIRE(spans.size() == 9);
    for (size_t i = 0; i < spans.size(); ++i) {
        CHECK(spans[i].batch == 10 + static_cast<int64_t>(i / 3));
        if (i > 0) CHECK(spans[i].start >= spans[i - 1].start);
    }
}

TEST_CASE("CUPTI records a GPU once - a second device on the same GPU says why it uses CUDA events") {
    SKIP_WITHOUT_GPU();
    GpuBench first;
    if (!cuda_trace_report(*first.device)->cupti) return;
    GpuBench second;
    CHECK(!cuda_trace_report(*second.device)->cupti);
    CHECK(second.tracing.find("already recording GPU 0") != std::string::npos);
}

TEST_CASE(
    "two GPUs in one process share CUPTI: each device's spans land on its own lanes with their batches") {
    SKIP_WITHOUT_GPU();
    if (cuda_device_count() < 2) {
        MESSAGE("skipped: one CUDA device");
        return;
    }
    Trace trace;
    std::unique_ptr<Device> devices[2];
    for (int gpu = 0; gpu < 2; ++gpu) {
        std::string tracing;
        devices[gpu] = make_cuda_device(trace, CudaDeviceOptions{gpu, true}, &tracing);
        CAPTURE(tracing);
        REQUIRE(cuda_trace_report(*devices[gpu])->cupti);
    }
    // Both at once, each from a thread of its own; batch b of GPU g is numbered g * 1000 + b.
    constexpr int kBatches = 40;
    auto run = [](Device& d, int gpu, int first, int count) {
        Stream streams[2] = {d.create_stream(0), d.create_stream(1)};
        HostBuffer host = d.allocate_host(MiB, HostMemory::pinned),
                   result = d.allocate_host(4096, HostMemory::pinned);
        DeviceBuffer input = d.allocate_device(MiB), output = d.allocate_device(4096);
        for (int b = first; b < first + count; ++b) {
            const int64_t batch = gpu * 1000 + b;
            Stream& stream = streams[b % 2];
            d.copy_to_device(input, 0, host, 0, MiB, stream, true, batch);
            d.launch_kernel(kernel_work(input, output, 20, batch), stream);
            d.copy_to_host(result, 0, output, 0, 4096, stream, true, batch);
        }
        d.synchronize();
    };
    std::thread second([&] { run(*devices[1], 1, 0, kBatches); });
    run(*devices[0], 0, 0, kBatches);
    second.join();
    // GPU 1 stops recording first; GPU 0 goes on recording on the shared subscription.
    devices[1].reset();
    run(*devices[0], 0, kBatches, 10);

    TraceStore store;
    trace.collect(store);
    std::map<int64_t, int> spans_of_gpu;
    for (const LaneInfo& lane : store.lanes()) {
        if (lane.group != LaneGroup::device) continue;
        CHECK(lane.group_name == device_group_name(lane.origin.process));
        for (const Span& s : store.spans(lane.id)) {
            CAPTURE(s.batch);
            REQUIRE(s.batch >= 0);
            CHECK(s.batch / 1000 == lane.origin.process);  // on the lanes of the GPU that ran it
            CHECK(lane.index == (s.batch % 1000) % 2);     // and of the stream it was issued on
            ++spans_of_gpu[lane.origin.process];
        }
    }
    CHECK(spans_of_gpu[0] == 3 * (kBatches + 10));
    CHECK(spans_of_gpu[1] == 3 * kBatches);
    const auto report = cuda_trace_report(*devices[0]);
    CHECK(report->dropped == 0);
    CHECK(report->untimed == 0);
    CHECK(report->uncorrelated == 0);
}

TEST_CASE("a pipeline on the GPU gives back every buffer, stream and event") {
    SKIP_WITHOUT_GPU();
    PipelineConfig config;
    config.num_workers = 2;
    config.batch_size = 8;
    config.sample_shape.dims = {3, 32, 32};
    config.kernel_us = 20;
    config.streams = 2;
    config.chunks = 2;
    for (bool pin : {true, false}) {
        config.pin_memory = pin;
        GpuBench bench;
        {
            SyntheticImageDataset dataset(config);
            std::shared_ptr<Recorder> recorder = bench.trace.make_recorder();
            const LaneId lane = bench.trace.lanes().lane(LaneRole::main);
            DataLoader loader(config, LoaderContext{*bench.device, bench.trace, dataset, *recorder, lane,
                                                    nullptr, 0, TrainLoop::batches_in_flight(config) + 1});
            TrainLoop train(config, *bench.device, *recorder, lane);
            for (int i = 0; i < 40; ++i) train.submit(std::move(*loader.next()));
            train.drain();
            CHECK(train.completed() == 40);
        }
        check_nothing_held(bench.device->resources());
        // The pipeline's teardown flushed the trace: every batch's kernels (2 chunks each) are there.
        int kernels = 0;
        for (const Span& s : bench.gpu_spans()) kernels += s.kind == SpanKind::kernel;
        CHECK(kernels == 80);
    }
}

TEST_CASE("gpu=N picks the GPU the session runs on, and a number the machine lacks is refused") {
    SKIP_WITHOUT_GPU();
    PipelineConfig config;
    config.device = DeviceChoice::cuda;
    config.gpu = cuda_device_count();  // one past the last
    Trace trace;
    CHECK_THROWS_WITH_AS(make_device(config, trace), doctest::Contains("gpu="), DeviceError);
    config.gpu = cuda_device_count() - 1;
    const DeviceSelection selection = make_device(config, trace);
    Stream stream = selection.device->create_stream(0);
    DeviceBuffer input = selection.device->allocate_device(MiB),
                 output = selection.device->allocate_device(4096);
    selection.device->launch_kernel(kernel_work(input, output, 10, 7), stream);
    selection.device->synchronize();
    TraceStore store;
    trace.collect(store);
    int kernels = 0;
    for (const LaneInfo& lane : store.lanes())
        for (const Span& s : store.spans(lane.id))
            if (s.kind == SpanKind::kernel) {
                ++kernels;
                CHECK(lane.origin.process == config.gpu);
            }
    CHECK(kernels == 1);
}

TEST_CASE("on the GPU, the naive benchmark runs in a fresh process: pageable's stopwatch holds the context") {
    SKIP_WITHOUT_GPU();
    set_fresh_process_program(PINSCOPE_BINARY);
    std::map<bool, double> stopwatch_s;
    for (const bool pinned : {false, true}) {
        CAPTURE(pinned);
        PipelineConfig config;
        config.device = DeviceChoice::cuda;
        config.naive_benchmark = true;
        config.pin_memory = pinned;
        config.batch_size = 32;
        MeasuredRun run(config);
        run.run();
        REQUIRE(run.session().status().state == SessionState::finished);
        const TraceCollector::Snapshot snapshot = run.trace();
        const TraceStore& store = snapshot.store();
        std::vector<Span> stopwatches, contexts, copies;
        for (const LaneInfo& lane : store.lanes())
            for (const Span& s : store.spans(lane.id)) {
                if (s.kind == SpanKind::stopwatch) stopwatches.push_back(s);
                if (s.kind == SpanKind::h2d) {
                    copies.push_back(s);
                    CHECK(lane.group == LaneGroup::device);
                }
                // The child's context, not the parent's device (which names itself "this device's").
                if (s.kind == SpanKind::startup &&
                    store.name(s.name).find("process's first") != std::string::npos)
                    contexts.push_back(s);
            }
        REQUIRE(stopwatches.size() == 1);
        REQUIRE(contexts.size() == 1);
        REQUIRE(copies.size() == 1);
        CHECK(copies.front().bytes == static_cast<uint64_t>(config.batch_bytes()));
        if (pinned)
            CHECK(contexts.front().end <= stopwatches.front().start);
        else
            CHECK((contexts.front().start >= stopwatches.front().start &&
                   contexts.front().end <= stopwatches.front().end));
        stopwatch_s[pinned] = run.metrics().stopwatch_s;
        // doctest's MESSAGE streams a const char* from ?: as a pointer: build the line as a string.
        const std::string line = std::string(pinned ? "pinned" : "pageable") + ": stopwatch " +
                                 std::to_string(stopwatch_s[pinned] * 1e3) + " ms, context " +
                                 std::to_string(ns_to_s(contexts.front().duration()) * 1e3) + " ms";
        MESSAGE(line);
    }
    CHECK(stopwatch_s[false] >= 20 * stopwatch_s[true]);
}
