// Reading a range of a capture: only the SPAN sections the index says reach into it are read (the file
// is mapped, the rest never touched), counter samples outside it are dropped, and the metrics are of
// the part. What a viewer does with a capture bigger than memory.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "core/io/capture.h"
#include "tests/scratch.h"

namespace pinscope {
namespace {

constexpr TimeNs kStart = 5 * kNsPerS;
constexpr int kBatches = 10'000;  // one a millisecond: 10 s
constexpr size_t kPerSection = 500;

// Two lanes of 10 s, written as a streamed capture writes them: a SPAN section every 500 spans, and a
// counter sample per batch.
std::filesystem::path write_ten_seconds(const std::string& name, bool with_window = true) {
    TraceStore tables(TraceLimits{SIZE_MAX, SIZE_MAX});
    LaneRegistry registry;
    const LaneId loop = registry.lane(LaneRole::main), kernel = registry.lane(LaneRole::kernel, 0);
    tables.set_lanes(registry.snapshot());
    const std::filesystem::path path = testing::scratch_path(name);
    std::ofstream out(path, std::ios::binary);
    CaptureWriter writer(out);
    std::vector<Span> loop_spans, kernel_spans;
    std::vector<CounterSample> samples;
    for (int b = 0; b < kBatches; ++b) {
        const TimeNs t = kStart + b * kNsPerMs;
        loop_spans.push_back(Span{t, t + 300'000, b, 0, loop, SpanKind::wait});
        kernel_spans.push_back(Span{t + 300'000, t + 900'000, b, 0, kernel, SpanKind::kernel});
        samples.push_back(CounterSample{t, static_cast<double>(b % 3), CounterKind::outstanding_batches});
        if (loop_spans.size() == kPerSection) {
            writer.spans(loop, loop_spans);
            writer.spans(kernel, kernel_spans);
            writer.counters(CounterKind::outstanding_batches, samples);
            loop_spans.clear(), kernel_spans.clear(), samples.clear();
        }
    }
    CaptureInfo info;  // no config
    if (with_window) info.window = {kStart, kStart + kBatches * kNsPerMs};
    writer.finish(tables, info);
    return path;
}

}  // namespace

TEST_CASE("a range of a capture reads the sections that reach into it, and its metrics are of that part") {
    const std::filesystem::path path = write_ten_seconds("range.pinscope");
    const Capture whole = load_capture(path);
    REQUIRE(whole.store.span_count() == 2 * kBatches);
    CHECK(!whole.info.loaded_range);
    CHECK(whole.info.spans_in_file == 2 * kBatches);

    const Capture part = load_capture(path, {}, CaptureRange{4.2, 5.1});
    REQUIRE(part.info.loaded_range);
    CHECK(part.info.loaded_range->start == kStart + 4'200 * kNsPerMs);
    CHECK(part.info.loaded_range->end == kStart + 5'100 * kNsPerMs);
    CHECK(part.info.spans_in_file == 2 * kBatches);
    // The sections of 0.5 s that reach into 4.2 s to 5.1 s: 4.0-4.5, 4.5-5.0 and 5.0-5.5, on both lanes.
    CHECK(part.store.span_count() == 2 * 3 * kPerSection);
    // Every span of the range is there, as it is in the whole capture.
    size_t inside = 0;
    for (const Span& s : whole.store.spans(0))
        if (s.start >= part.info.loaded_range->start && s.end <= part.info.loaded_range->end) ++inside;
    size_t inside_part = 0;
    for (const Span& s : part.store.spans(0))
        if (s.start >= part.info.loaded_range->start && s.end <= part.info.loaded_range->end) ++inside_part;
    CHECK(inside_part == inside);
    CHECK(inside == 900);
    // Counter samples only inside the range; metrics over the range: 900 batches in 0.9 s.
    for (const CounterSample& c : part.store.counters(CounterKind::outstanding_batches)) {
        CHECK(c.time >= part.info.loaded_range->start);
        CHECK(c.time <= part.info.loaded_range->end);
    }
    const Metrics m = capture_metrics(part);
    CHECK(m.end - m.start == 900 * kNsPerMs);
    CHECK(m.batches >= 899);
    CHECK(m.batches <= 901);

    // The index says what reading it whole would take, without reading the spans.
    const CaptureSize size = capture_size(path);
    CHECK(size.spans == 2 * kBatches);
    CHECK(size.window == kBatches * kNsPerMs);
    CHECK(!range_that_fits(size, size.memory_bytes));
    const std::optional<CaptureRange> fits = range_that_fits(size, size.memory_bytes / 4);
    REQUIRE(fits);
    CHECK(fits->from_s == 0);
    CHECK(fits->to_s == doctest::Approx(2.5));
    std::filesystem::remove(path);
}

TEST_CASE("a capture that recorded no window counts a range from its first span, and says so in its window") {
    const std::filesystem::path path = write_ten_seconds("range-no-window.pinscope", false);
    const Capture part = load_capture(path, {}, CaptureRange{1, 2});
    REQUIRE(part.info.loaded_range);
    CHECK(part.info.window.start == kStart);  // the first span, from the index
    CHECK(part.info.window.end == kStart + (kBatches - 1) * kNsPerMs + 900'000);  // the last span's end
    CHECK(part.info.loaded_range->start == kStart + 1'000 * kNsPerMs);
    CHECK(part.info.loaded_range->end == kStart + 2'000 * kNsPerMs);
    std::filesystem::remove(path);
}

TEST_CASE("a range that starts past the end, an empty range, and a range of a format 2 file are refused") {
    const std::filesystem::path path = write_ten_seconds("range-refused.pinscope");
    CHECK_THROWS_WITH_AS(load_capture(path, {}, CaptureRange{11, 12}),
                         doctest::Contains("after the capture's end (10.000 s)"), CaptureError);
    CHECK_THROWS_WITH_AS(load_capture(path, {}, CaptureRange{3, 3}), doctest::Contains("is empty"),
                         CaptureError);
    std::filesystem::remove(path);
    const std::filesystem::path v2 =
        std::filesystem::path(PINSCOPE_CAPTURES) / "h100-transfer-bound-pinned.pinscope";
    CHECK_THROWS_WITH_AS(load_capture(v2, {}, CaptureRange{0, 1}), doctest::Contains("has no index"),
                         CaptureError);
    CHECK_THROWS_AS(parse_capture_range("5"), std::invalid_argument);
    CHECK_THROWS_AS(parse_capture_range("5:4"), std::invalid_argument);
    CHECK_THROWS_AS(parse_capture_range("a:b"), std::invalid_argument);
    CHECK(parse_capture_range("120:150.5").to_s == 150.5);
}

}  // namespace pinscope
