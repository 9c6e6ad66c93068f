// A session is built from parts handed in (session_parts.h): a trace, a dataset, a device. With fakes of
// the last two, the whole pipeline (workers, reorder buffer, train loop) runs on what the test gives it.
#include <doctest/doctest.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>

#include "core/pipeline/session.h"
#include "tests/leak_checks.h"
#include "tests/sim_configs.h"

using namespace pinscope;
using namespace pinscope::testing;

namespace {

// Each sample is its index, as a float, repeated: what a test can check arrived whole.
class CountingDataset final : public Dataset {
  public:
    CountingDataset(int64_t floats, std::atomic<int64_t>& fetched) : floats_(floats), fetched_(fetched) {}
    int64_t sample_bytes() const override { return floats_ * 4; }
    void fetch(int64_t index, std::byte* out, const std::atomic<bool>&) const override {
        for (int64_t i = 0; i < floats_; ++i) reinterpret_cast<float*>(out)[i] = static_cast<float>(index);
        fetched_.fetch_add(1);
    }

  private:
    int64_t floats_;
    std::atomic<int64_t>& fetched_;
};

// A GPU that does everything at once: copies and kernels complete as they are issued. It records no
// spans of its own; it counts what it was asked to do, and checks each batch's bytes on their way in.
class InstantDevice final : public Device {
  public:
    struct Counts {
        std::atomic<int64_t> copies_in{0}, kernels{0}, copies_out{0};
        std::atomic<bool> bytes_whole{true};
    };
    explicit InstantDevice(Counts& counts) : counts_(counts) {
        info_.kind = "fake";
        info_.name = "an instant test GPU";
        info_.copy_engines = 2;
    }
    const DeviceInfo& info() const override { return info_; }

    void copy_to_device(const DeviceBuffer&, size_t, const HostBuffer& src, size_t offset, size_t bytes,
                        Stream&, bool, int64_t batch) override {
        ++counts_.copies_in;
        // A batch of batch_size samples of `floats` each: sample k of batch b holds b * batch_size + k.
        const float first = reinterpret_cast<const float*>(src.data() + offset)[0];
        if (batch >= 0 && bytes > 0 && first < 0) counts_.bytes_whole = false;
    }
    void copy_to_host(HostBuffer&, size_t, const DeviceBuffer&, size_t, size_t, Stream&, bool,
                      int64_t) override {
        ++counts_.copies_out;
    }
    void launch_kernel(const KernelWork&, Stream&) override { ++counts_.kernels; }
    void record(Event&, Stream&) override {}
    void wait(Stream&, const Event&) override {}
    bool ready(const Event&) override { return true; }
    void synchronize(const Event&) override {}
    void synchronize(Stream&) override {}
    void synchronize() override {}

  protected:
    std::byte* raw_allocate_host(size_t bytes, HostMemory) override {
        return static_cast<std::byte*>(std::calloc(bytes, 1));
    }
    void raw_free_host(std::byte* data, size_t, HostMemory) override { std::free(data); }
    void* raw_allocate_device(size_t) override { return reinterpret_cast<void*>(++handles_); }
    void raw_free_device(void*, size_t) override {}
    uintptr_t raw_create_stream(int) override { return ++handles_; }
    void raw_destroy_stream(uintptr_t) override {}
    uintptr_t raw_create_event() override { return ++handles_; }
    void raw_destroy_event(uintptr_t) override {}

  private:
    Counts& counts_;
    DeviceInfo info_;
    std::atomic<uintptr_t> handles_{0};
};

}  // namespace

TEST_CASE("a session built from parts runs its pipeline on the dataset, device and trace it is given") {
    std::atomic<int64_t> fetched{0};
    InstantDevice::Counts counts;
    SessionParts parts;
    parts.trace = std::make_shared<Trace>();
    parts.dataset = [&](const PipelineConfig&) { return std::make_unique<CountingDataset>(16, fetched); };
    parts.device = [&](const PipelineConfig&, Trace&) {
        return DeviceSelection{std::make_unique<InstantDevice>(counts), "a fake, handed in by the test"};
    };
    PipelineConfig config = tiny_run(12);  // 2 workers, batches of 8
    config.sample_shape.dims = {16};       // what CountingDataset's samples hold
    const ThreadCount threads;
    {
        Session session(config, parts);
        session.start();
        REQUIRE(session.wait(30 * kNsPerS));
        const SessionStatus status = session.status();
        CHECK(status.state == SessionState::finished);
        CHECK(status.batches == 12);
        CHECK(status.device.name == "an instant test GPU");
        CHECK(status.device_why == "a fake, handed in by the test");
        CHECK(&session.trace() == parts.trace.get());
        check_nothing_held(session.device_resources());  // every buffer back to the fake device
    }
    CHECK(threads.threads_back());
    CHECK(counts.kernels == 12);
    CHECK(counts.copies_in == 12);
    CHECK(counts.bytes_whole);
    CHECK(fetched >= 12 * 8);  // every batch's samples, and those prefetched when the run ended
    TraceStore store;
    parts.trace->collect(store);
    size_t fetch_spans = 0;
    for (const LaneInfo& lane : store.lanes())
        for (const Span& s : store.spans(lane.id)) fetch_spans += s.kind == SpanKind::fetch;
    CHECK(fetch_spans >= 12);  // the workers recorded into the trace the test handed in
}

TEST_CASE("two sessions on simulated GPUs 0 and 1 share one trace: each GPU's work on its own lanes") {
    SessionParts parts = session_parts();  // make_device reads the gpu knob
    PipelineConfig first = tiny_run(10), second = tiny_run(14);
    second.gpu = 1;
    {
        Session on_gpu0(first, parts), on_gpu1(second, parts);
        on_gpu0.start();
        on_gpu1.start();
        REQUIRE(on_gpu0.wait(30 * kNsPerS));
        REQUIRE(on_gpu1.wait(30 * kNsPerS));
    }
    TraceStore store;
    parts.trace->collect(store);
    std::map<int64_t, int> kernels_of_gpu;
    for (const LaneInfo& lane : store.lanes()) {
        if (lane.group != LaneGroup::device) continue;
        CHECK(lane.group_name == device_group_name(lane.origin.process));
        for (const Span& s : store.spans(lane.id))
            kernels_of_gpu[lane.origin.process] += s.kind == SpanKind::kernel;
    }
    CHECK(kernels_of_gpu.size() == 2);
    CHECK(kernels_of_gpu[0] == 10);
    CHECK(kernels_of_gpu[1] == 14);
}
