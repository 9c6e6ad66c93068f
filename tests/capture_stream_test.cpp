// A capture streamed as the run records: it holds every span of the run however small the live store's
// memory bound, and a run that ends without finishing it leaves nothing behind.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "core/io/capture.h"
#include "core/io/capture_stream.h"
#include "core/lab/measured_run.h"
#include "core/lab/session_capture.h"
#include "tests/scratch.h"
#include "tests/sim_configs.h"

namespace pinscope {
namespace {

TimeNs earliest_span(const TraceStore& store) {
    TimeNs first = std::numeric_limits<TimeNs>::max();
    for (const LaneInfo& lane : store.lanes())
        if (!store.spans(lane.id).empty()) first = std::min(first, store.spans(lane.id).front().start);
    return first;
}

}  // namespace

TEST_CASE("a streamed capture keeps every span that the live store's bound evicts") {
    const std::filesystem::path path = testing::scratch_path("streamed.pinscope");
    PipelineConfig config = testing::tiny_run(3000);
    config.num_workers = 0;
    auto stream = std::make_shared<CaptureStream>(OutputFile(path, "the capture"));
    // Small blocks of the store: it keeps about 2,000 spans of the run's 12,000 and more.
    MeasuredRun run(config, TraceLimits{2'000, 100'000}, stream);
    run.run();
    const CaptureInfo info = streamed_capture_info(run, *stream);
    const TraceCollector::Snapshot live = run.trace();
    REQUIRE(live->evicted_spans() > 5'000);
    stream->finish(live->tables(), info);

    const Capture capture = load_capture(path);
    CHECK(capture.store.span_count() == stream->spans());
    CHECK(capture.store.span_count() == live->span_count() + live->evicted_spans());
    CHECK(earliest_span(capture.store) < earliest_span(live.store()));
    CHECK(capture.info.evicted_spans == 0);
    // Every batch of the run is in the file, from the first: 3000 batches at batch size config.batch_size.
    const Metrics metrics = capture_metrics(capture);
    CHECK(metrics.batches == 3000);
    std::filesystem::remove(path);
}

TEST_CASE("a streamed capture that is never finished leaves the target as it was") {
    const std::filesystem::path path = testing::scratch_path("abandoned.pinscope");
    {
        std::ofstream(path) << "before";
        CaptureStream stream{OutputFile(path, "the capture")};
        for (int i = 0; i < 200'000; ++i) stream.span(Span{i * 10, i * 10 + 5, i, 0, 0, SpanKind::fetch});
    }
    std::ifstream in(path);
    std::string text;
    in >> text;
    CHECK(text == "before");
    int left = 0;
    for (const auto& entry : std::filesystem::directory_iterator(path.parent_path()))
        left += entry.path().filename().string().find("abandoned.pinscope.") != std::string::npos;
    CHECK(left == 0);  // no temporary beside it
    std::filesystem::remove(path);
}

}  // namespace pinscope
