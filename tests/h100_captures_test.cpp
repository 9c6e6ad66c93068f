// The captures recorded on the H100 with CUPTI and committed under assets/captures/ (the transfer-bound
// workload of docs/h100-results.md, pinned and pageable; tools/h100_captures.sh made them) open on any
// machine with what that GPU recorded: its name, CUPTI's spans with the memory kind of every copy, and
// each batch's copy, kernel and result copy under one batch id.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <set>

#include "core/io/capture.h"

using namespace pinscope;

namespace {

const std::filesystem::path kCaptures = PINSCOPE_CAPTURES;

// Per batch id, the kinds of the GPU spans that carry it.
std::map<int64_t, std::multiset<SpanKind>> gpu_spans_by_batch(const TraceStore& store) {
    std::map<int64_t, std::multiset<SpanKind>> batches;
    for (const LaneInfo& lane : store.lanes())
        if (lane.role == LaneRole::h2d || lane.role == LaneRole::kernel || lane.role == LaneRole::d2h)
            for (const Span& span : store.spans(lane.id)) batches[span.batch].insert(span.kind);
    return batches;
}

void check_h100_capture(const std::string& file, bool pinned) {
    CAPTURE(file);
    const Capture capture = load_capture(kCaptures / file);
    CHECK(capture.info.device.name == "NVIDIA H100 80GB HBM3");
    CHECK(capture.info.config->device == DeviceChoice::cuda);
    CHECK(capture.info.config->pin_memory == pinned);
    REQUIRE(capture.info.gpu_trace.has_value());
    CHECK(capture.info.gpu_trace->cupti);
    CHECK(capture.info.gpu_trace->dropped == 0);
    CHECK(capture.info.calibration.is_null());  // a real GPU's capture has no simulated one

    // Every H2D copy has the memory kind CUPTI reported, and it is the one the config asked for.
    size_t copies = 0;
    for (const LaneInfo& lane : capture.store.lanes()) {
        if (lane.role != LaneRole::h2d) continue;
        for (const Span& span : capture.store.spans(lane.id)) {
            ++copies;
            CHECK(span.memory == (pinned ? HostMemory::pinned : HostMemory::pageable));
        }
    }
    CHECK(copies >= 50);  // a second of the workload: 66 pageable, 425 pinned

    // Batch ids run from 0 without gaps, and a batch's GPU spans are one H2D, one kernel, one D2H.
    const auto batches = gpu_spans_by_batch(capture.store);
    REQUIRE(batches.size() >= 50);
    CHECK(batches.count(kNoBatch) == 0);
    CHECK(batches.begin()->first == 0);
    CHECK(batches.rbegin()->first == static_cast<int64_t>(batches.size()) - 1);
    size_t complete = 0;
    for (const auto& [batch, kinds] : batches) {
        CHECK(kinds.count(SpanKind::h2d) <= 1);
        CHECK(kinds.count(SpanKind::kernel) <= 1);
        complete += kinds.count(SpanKind::h2d) == 1 && kinds.count(SpanKind::kernel) == 1 &&
                    kinds.count(SpanKind::d2h) == 1;
    }
    // Batches still in flight when the run stopped may lack their last spans; the rest are whole.
    CHECK(complete + capture.info.config->streams * 4 >= batches.size());
}

}  // namespace

TEST_CASE("the committed H100 captures open with the GPU's name, CUPTI's memory kinds and batch ids") {
    check_h100_capture("h100-transfer-bound-pinned.pinscope", true);
    check_h100_capture("h100-transfer-bound-pageable.pinscope", false);
}

TEST_CASE("on the H100 captures, pinned copies ran several times the pageable speed") {
    const Metrics pinned = capture_metrics(load_capture(kCaptures / "h100-transfer-bound-pinned.pinscope"));
    const Metrics pageable =
        capture_metrics(load_capture(kCaptures / "h100-transfer-bound-pageable.pinscope"));
    CHECK(pinned.h2d_gbps > 3 * pageable.h2d_gbps);
    CHECK(pinned.pageable_h2d_fraction == 0);
    CHECK(pageable.pageable_h2d_fraction == 1);
    CHECK(pinned.overlap > pageable.overlap);
}
