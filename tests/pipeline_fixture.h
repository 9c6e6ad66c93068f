#pragma once
// What the pipeline tests share: a dataset whose per-sample cost and failures a test controls, and a
// harness that builds a DataLoader over a simulated GPU with its own trace.
#include <chrono>
#include <cstring>
#include <functional>
#include <thread>

#include "core/device/sim/sim_device.h"
#include "core/pipeline/data_loader.h"
#include "tests/sim_configs.h"

namespace pinscope::testing {

class ScriptedDataset final : public Dataset {
  public:
    // `delay_us(sample)` is how long fetching that sample waits; `fail(sample)` throws instead.
    std::function<double(int64_t)> delay_us = [](int64_t) { return 0.0; };
    std::function<void(int64_t)> fail = [](int64_t) {};

    int64_t sample_bytes() const override { return 16; }
    void fetch(int64_t index, std::byte* out, const std::atomic<bool>& stop) const override {
        fail(index);
        const auto until =
            std::chrono::steady_clock::now() + std::chrono::duration<double, std::micro>(delay_us(index));
        while (std::chrono::steady_clock::now() < until && !stop)
            std::this_thread::sleep_for(std::chrono::microseconds(200));
        std::memset(out, static_cast<int>(index & 0xFF), 16);
    }
};

struct LoaderHarness {
    Trace trace;
    SimDevice device{trace};
    std::shared_ptr<Recorder> recorder = trace.make_recorder();
    LaneId lane = trace.lanes().lane(LaneRole::main);
    ScriptedDataset dataset;
    Gauge pinned{trace, CounterKind::pinned_bytes};
    TraceStore store;

    std::unique_ptr<DataLoader> make(const PipelineConfig& config) {
        return std::make_unique<DataLoader>(
            config, LoaderContext{device, trace, dataset, *recorder, lane, &pinned, 0, 2});
    }

    const TraceStore& collect() {
        trace.collect(store);
        return store;
    }

    double counter_max(CounterKind kind) {
        double highest = 0;
        for (const CounterSample& s : collect().counters(kind)) highest = std::max(highest, s.value);
        return highest;
    }

    size_t spans_on(LaneRole kind, SpanKind span_kind) {
        size_t n = 0;
        for (const LaneInfo& lane_info : collect().lanes())
            if (lane_info.role == kind)
                for (const Span& s : store.spans(lane_info.id)) n += s.kind == span_kind;
        return n;
    }
};

}  // namespace pinscope::testing
