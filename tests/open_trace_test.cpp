// The open trace model: a trace pinscope did not record (processes, threads, devices and streams of
// its own, named spans that nest, categories pinscope does not know, flows) keeps all of it through a
// capture without a pipeline config, and metrics read it by role as they read pinscope's own.
#include <doctest/doctest.h>

#include <filesystem>

#include "core/analysis/metrics.h"
#include "core/io/capture.h"
#include "core/io/metrics_json.h"
#include "core/trace/lanes.h"
#include "core/trace/trace_store.h"
#include "tests/scratch.h"
#include "tests/three_process_trace.h"

namespace pinscope {

using testing::ThreeProcessTrace;

TEST_CASE("a trace of three processes and two devices, named and nested, reopens as it was saved") {
    ThreeProcessTrace trace;
    const TraceStore& store = trace.store;
    CaptureInfo info;  // no config: no pipeline of pinscope's ran this
    info.device.name = "2x NVIDIA H100 80GB HBM3";
    info.window = {store.first_time(), store.last_time()};
    const std::filesystem::path path = testing::scratch_path("three-processes.pinscope");
    save_capture(path, store, info);
    const Capture capture = load_capture(path);
    std::filesystem::remove(path);

    CHECK(!capture.info.config);
    REQUIRE(capture.store.lanes().size() == store.lanes().size());
    for (size_t i = 0; i < store.lanes().size(); ++i) {
        const LaneInfo &a = store.lanes()[i], &b = capture.store.lanes()[i];
        CAPTURE(a.name);
        CHECK(b.name == a.name);
        CHECK(b.role == a.role);
        CHECK(b.group == a.group);
        CHECK(b.origin == a.origin);
        CHECK(b.group_name == a.group_name);
        CHECK(b.sort_key == a.sort_key);
        CHECK(b.index == a.index);
    }
    // The group tree: three processes, then two devices of six engine lanes each.
    const std::vector<LaneGroupNode> tree = lane_tree(capture.store.lanes());
    REQUIRE(tree.size() == 5);
    CHECK(tree[0].name == "python train.py (pid 4100)");
    CHECK(tree[0].lanes == std::vector<LaneId>{trace.main, trace.pin});
    CHECK(tree[1].name == "DataLoader worker 0 (pid 4201)");
    CHECK(tree[2].name == "DataLoader worker 1 (pid 4202)");
    CHECK(tree[3].group == LaneGroup::device);
    CHECK(tree[3].process == 0);
    CHECK(tree[4].process == 1);
    CHECK(tree[3].lanes.size() == 6);
    CHECK(tree[4].lanes.size() == 6);

    // Every span, with its name, category and depth.
    CHECK(capture.store.span_count() == store.span_count());
    int deepest = 0;
    for (const LaneInfo& lane : store.lanes()) {
        const auto saved = store.spans(lane.id), opened = capture.store.spans(lane.id);
        REQUIRE(opened.size() == saved.size());
        for (size_t i = 0; i < saved.size(); ++i) {
            CHECK(opened[i].start == saved[i].start);
            CHECK(opened[i].end == saved[i].end);
            CHECK(opened[i].batch == saved[i].batch);
            CHECK(opened[i].depth == saved[i].depth);
            CHECK(capture.store.name(opened[i].name) == store.name(saved[i].name));
            CHECK(capture.store.category_name(opened[i].kind) == store.category_name(saved[i].kind));
            CHECK(opened[i].memory == saved[i].memory);
            deepest = std::max(deepest, static_cast<int>(opened[i].depth));
        }
    }
    CHECK(deepest == 2);
    CHECK(capture.store.category_name(capture.store.spans(trace.main)[1].kind) == "user_annotation");
    CHECK(capture.store.flows() == store.flows());
    CHECK(capture.store.flows().size() == 4);

    // Metrics read the lanes by role: the same numbers from the trace and from the capture, and the
    // copies, kernels and waits that the roles point at are all counted.
    const Metrics saved = compute_metrics(store, 0, info.window);
    const Metrics opened = capture_metrics(capture);
    CHECK(metrics_json(opened) == metrics_json(saved));
    CHECK(opened.batches == 4);
    CHECK(opened.h2d_bytes == 4u << 20);
    CHECK(opened.stall > 0);
}

TEST_CASE("imported categories keep their names, and too many share one without losing a span") {
    CategoryTable table;
    CHECK(table.intern("kernel") == SpanKind::kernel);  // pinscope's own name is pinscope's own kind
    const SpanKind op = table.intern("cpu_op");
    CHECK(!is_builtin(op));
    CHECK(table.intern("cpu_op") == op);
    CHECK(table.name(op) == "cpu_op");
    SpanKind last = op;
    for (int i = 0; i < 400; ++i) last = table.intern("category " + std::to_string(i));
    CHECK(static_cast<int>(last) == kMaxSpanKinds - 1);
    CHECK(table.name(last) == CategoryTable::kOverflowCategory);
    CHECK(table.size() == kMaxSpanKinds);
}

}  // namespace pinscope
