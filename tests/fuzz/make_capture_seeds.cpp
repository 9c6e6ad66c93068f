// Writes the capture fuzzer's seeds into a folder: tiny runs on the simulated GPU saved as captures, a
// hand-made trace with what runs do not record (span names, an empty lane), an empty capture, and two
// damaged copies (cut short, one byte flipped), so the fuzzer starts from every part of the format.
//   make_capture_seeds tests/fuzz/corpus/capture
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/io/capture.h"
#include "core/lab/measured_run.h"
#include "core/lab/session_capture.h"
#include "tests/sim_configs.h"

using namespace pinscope;

namespace {

void save_run(const std::filesystem::path& path, const PipelineConfig& config) {
    MeasuredRun run(config);
    run.run();
    const TraceCollector::Snapshot snapshot = run.trace();
    save_capture(path, snapshot.store(), session_capture_info(run));
}

// Spans with names, as an imported trace has them, a lane that never recorded, and counter samples.
void save_named_trace(const std::filesystem::path& path) {
    LaneRegistry registry;
    const LaneId main = registry.lane(LaneRole::main);
    const LaneId h2d = registry.lane(LaneRole::h2d, 0);
    const LaneId kernel = registry.lane(LaneRole::kernel, 0);
    registry.lane(LaneRole::d2h, 0);
    TraceStore store(TraceLimits{SIZE_MAX, SIZE_MAX});
    store.set_lanes(registry.snapshot());
    const uint32_t gemm = store.intern("sm90_xmma_gemm_bf16");
    constexpr TimeNs kBase = 1'000'000'000;
    for (int b = 0; b < 3; ++b) {
        const TimeNs t = kBase + b * 10'000;
        store.add(Span{t, t + 500, kNoBatch, 0, main, SpanKind::wait});
        store.add(Span{t + 500, t + 2'500, b, 1 << 20, h2d, SpanKind::h2d, HostMemory::pinned});
        store.add(Span{t + 2'500, t + 9'000, b, 0, kernel, SpanKind::kernel, HostMemory::none, gemm});
        store.add(CounterSample{t, double(b), CounterKind::outstanding_batches});
    }
    CaptureInfo info;
    info.config = testing::tiny_run(3);
    info.window = {kBase, kBase + 30'000};
    info.created = "2026-11-23T10:00:00Z";
    save_capture(path, store, info);
}

// A trace no pipeline ran (no config): two processes and a second device, categories of its own, spans
// nested two deep and a flow, as an import will have them.
void save_open_trace(const std::filesystem::path& path) {
    LaneRegistry registry;
    LaneInfo thread;
    thread.role = LaneRole::main;
    thread.name = "MainThread";
    thread.origin = {4100, 4100};
    thread.group_name = "python train.py (pid 4100)";
    const LaneId main = registry.lane(thread);
    thread.role = LaneRole::worker;
    thread.name = "worker 0";
    thread.origin = {4201, 4201};
    thread.group_name = "DataLoader worker 0 (pid 4201)";
    const LaneId worker = registry.lane(thread);
    LaneInfo engine = own_lane(LaneRole::kernel, 7, 1);
    const LaneId kernel = registry.lane(engine);
    TraceStore store(TraceLimits{SIZE_MAX, SIZE_MAX});
    store.set_lanes(registry.snapshot());
    const SpanKind step = store.intern_category("user_annotation"), op = store.intern_category("cpu_op");
    constexpr TimeNs kBase = 2'000'000'000;
    for (int b = 0; b < 3; ++b) {
        const TimeNs t = kBase + b * 10'000;
        store.add(
            Span{t - 5'000, t, b, 0, worker, SpanKind::fetch, HostMemory::none, store.intern("img.jpg")});
        Span outer{t,
                   t + 9'000,
                   b,
                   0,
                   main,
                   step,
                   HostMemory::none,
                   store.intern("ProfilerStep#" + std::to_string(b))};
        store.add(outer);
        Span inner{t + 1'000, t + 3'000, kNoBatch,         0,
                   main,      op,        HostMemory::none, store.intern("aten::copy_")};
        inner.depth = 1;
        store.add(inner);
        store.add(Span{t + 3'000, t + 8'000, b, 0, kernel, SpanKind::kernel});
        store.add(Flow{t + 1'000, t + 3'000, main, kernel});
    }
    CaptureInfo info;  // no config
    info.window = {kBase, kBase + 30'000};
    info.created = "2026-11-26T10:00:00Z";
    save_capture(path, store, info);
}

std::string read_bytes(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
}

void write_bytes(const std::filesystem::path& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc)
        .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: make_capture_seeds FOLDER\n");
        return 2;
    }
    const std::filesystem::path folder = argv[1];
    std::filesystem::create_directories(folder);

    save_run(folder / "run-4-batches.pinscope", testing::tiny_run(4));
    PipelineConfig inline_pageable = testing::tiny_run(3);
    inline_pageable.num_workers = 0;
    inline_pageable.pin_memory = false;
    inline_pageable.non_blocking = false;
    save_run(folder / "run-inline-pageable.pinscope", inline_pageable);
    PipelineConfig chunked = testing::tiny_run(3);
    chunked.chunks = 2;
    chunked.pin_mode = PinMode::direct;
    save_run(folder / "run-chunked-direct.pinscope", chunked);
    save_named_trace(folder / "named-spans.pinscope");
    save_open_trace(folder / "open-trace.pinscope");
    save_capture(folder / "empty.pinscope", TraceStore{}, CaptureInfo{});

    const std::string whole = read_bytes(folder / "run-4-batches.pinscope");
    write_bytes(folder / "cut-short.pinscope", whole.substr(0, whole.size() * 2 / 3));
    std::string flipped = whole;
    flipped[flipped.size() - 40] ^= 0x10;  // inside the last section's compressed bytes
    write_bytes(folder / "flipped-byte.pinscope", flipped);

    for (const auto& entry : std::filesystem::directory_iterator(folder))
        std::printf("%8ju  %s\n", static_cast<uintmax_t>(entry.file_size()), entry.path().c_str());
}
