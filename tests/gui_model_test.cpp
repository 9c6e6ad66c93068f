// The desktop app's logic without a window: culling and folding, the viewport, the batch trail,
// counter plots, range summaries, presets, the config editor, recordings and the file browser.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "app/gui/model/batch_trail.h"
#include "app/gui/model/config_editor.h"
#include "app/gui/model/counter_columns.h"
#include "app/gui/model/file_browser.h"
#include "app/gui/model/frame_stats.h"
#include "app/gui/model/lane_levels.h"
#include "app/gui/model/lane_order.h"
#include "app/gui/model/range_summary.h"
#include "app/gui/model/recording.h"
#include "app/gui/model/ruler_step.h"
#include "app/gui/model/span_folding.h"
#include "app/gui/model/stretched_time.h"
#include "app/gui/model/synthetic_trace.h"
#include "app/gui/model/timeline_rows.h"
#include "core/config/presets.h"
#include "core/units/units.h"
#include "scratch.h"
#include "tests/three_process_trace.h"
#include "tests/within.h"

using namespace pinscope;
using pinscope::testing::within;
using namespace pinscope::gui;

namespace {

// One lane of `n` spans of `width` ns every `period` ns, from `origin`.
std::vector<Span> regular_lane(size_t n, TimeNs width, TimeNs period, TimeNs origin = 0) {
    std::vector<Span> spans;
    for (size_t i = 0; i < n; ++i) {
        const TimeNs start = origin + static_cast<TimeNs>(i) * period;
        spans.push_back(Span{start, start + width, static_cast<int64_t>(i), 0, 0, SpanKind::kernel});
    }
    return spans;
}

LaneSpans lane_of(const std::vector<Span>& spans) {
    LaneSpans lane;
    for (const Span& s : spans) lane.add(s);
    return lane;
}

size_t spans_in(const std::vector<LaneDrawItem>& items) {
    size_t n = 0;
    for (const LaneDrawItem& item : items) n += item.count;
    return n;
}

}  // namespace

TEST_CASE("spans wide enough are drawn one by one, at exact positions relative to the view start") {
    const TimeNs origin = 5'000 * kNsPerS;  // steady_clock-sized times stay exact
    const auto lane = regular_lane(10, 100 * kNsPerUs, 1 * kNsPerMs, origin);
    const PixelMapping mapping{{origin, origin + 10 * kNsPerMs}, 1000};  // 100 px per ms
    std::vector<LaneDrawItem> items;
    fold_lane(lane_of(lane), mapping, items);
    REQUIRE(items.size() == 10);
    for (size_t i = 0; i < items.size(); ++i) {
        CHECK(items[i].count == 1);
        CHECK(items[i].first == i);
        CHECK(items[i].x0 == doctest::Approx(100.0 * static_cast<double>(i)));
        CHECK(items[i].x1 - items[i].x0 == doctest::Approx(10.0));
    }
}

TEST_CASE("a million spans in view fold into boxes that grow with pixels, not with spans") {
    const auto lane = regular_lane(1'000'000, 5 * kNsPerUs, 10 * kNsPerUs);  // 10 s of spans
    const PixelMapping mapping{{0, 10 * kNsPerS}, 1500};
    std::vector<LaneDrawItem> items;
    fold_lane(lane_of(lane), mapping, items);
    CHECK(spans_in(items) == lane.size());  // every span is drawn, alone or in a fold
    CHECK(items.size() <= 1500 / static_cast<size_t>(kFoldPx) + 2);
    for (size_t i = 1; i < items.size(); ++i)
        CHECK(items[i].first == items[i - 1].first + items[i - 1].count);
}

TEST_CASE("a long run of tiny spans folds into boxes of bounded width, so a change of memory shows") {
    std::vector<Span> lane = regular_lane(100'000, 8 * kNsPerUs, 10 * kNsPerUs);  // 1 s, no gaps to see
    for (size_t i = 50'000; i < lane.size(); ++i) lane[i].memory = HostMemory::pageable;
    const PixelMapping mapping{{0, kNsPerS}, 1200};
    std::vector<LaneDrawItem> items;
    fold_lane(lane_of(lane), mapping, items);
    CHECK(spans_in(items) == lane.size());
    CHECK(items.size() >= static_cast<size_t>(1200 / (kMaxFoldPx + 2 * kFoldPx)));
    for (const LaneDrawItem& item : items) CHECK(item.x1 - item.x0 <= kMaxFoldPx + 2 * kFoldPx);
    CHECK(items.front().memory == HostMemory::none);
    CHECK(items.back().memory == HostMemory::pageable);
}

TEST_CASE("a fold is drawn as full as its spans kept the lane busy") {
    // 1 us spans every 3.3 us, 2 px per... 1 px per us: far too narrow to draw, and busy 30% of the time.
    const std::vector<Span> spans = regular_lane(3000, 1000, 3300);
    const PixelMapping mapping{{0, 10 * kNsPerMs}, 1000};
    std::vector<LaneDrawItem> items;
    fold_lane(lane_of(spans), mapping, items);
    REQUIRE(items.size() > 10);
    size_t folds = 0;
    for (const LaneDrawItem& item : items) {
        if (!item.folded()) continue;
        ++folds;
        // The busy share of exactly the spans in this fold, from the first's start to the last's end.
        TimeNs busy = 0;
        for (size_t i = item.first; i < item.first + item.count; ++i) busy += spans[i].end - spans[i].start;
        const TimeNs extent = spans[item.first + item.count - 1].end - spans[item.first].start;
        CAPTURE(item.first);
        CHECK(item.occupancy == within(static_cast<double>(busy) / static_cast<double>(extent), 0.05));
        CHECK(item.occupancy < 0.35);  // a lane at 30% is drawn at 30%, not solid
    }
    CHECK(folds > 10);
    // A solid run folds full.
    fold_lane(lane_of(regular_lane(3000, 3300, 3300)), mapping, items);
    for (const LaneDrawItem& item : items)
        if (item.folded()) CHECK(item.occupancy == doctest::Approx(1.0));
}

TEST_CASE("folds end at gaps of at least the fold width, and a wide span is never swallowed") {
    std::vector<Span> lane = regular_lane(100, 1 * kNsPerUs, 2 * kNsPerUs);  // a dense run: 0..200 us
    lane.push_back(Span{500 * kNsPerUs, 900 * kNsPerUs, 100, 0, 0, SpanKind::kernel});  // wide, after a gap
    const PixelMapping mapping{{0, kNsPerMs}, 1000};  // 1 px per us: the dense spans are 1 px wide
    std::vector<LaneDrawItem> items;
    fold_lane(lane_of(lane), mapping, items, kFoldPx, 1e9);  // no width cap: only gaps end folds
    REQUIRE(items.size() == 2);
    CHECK(items[0].count == 100);
    CHECK(items[1].count == 1);
    CHECK(items[1].x0 == doctest::Approx(500));
}

TEST_CASE("culling keeps only spans that touch the view, including one that started before it") {
    std::vector<Span> lane = {{0, 50, 0}, {100, 400, 1}, {450, 460, 2}, {900, 1000, 3}};
    const PixelMapping mapping{{300, 600}, 300};
    std::vector<LaneDrawItem> items;
    fold_lane(lane_of(lane), mapping, items);
    REQUIRE(items.size() == 2);
    CHECK(items[0].first == 1);  // starts before the view, ends inside it
    CHECK(items[0].x0 < 0);
    CHECK(items[1].first == 2);
    CHECK(mapping.clamp_x(-1e12) >= -64.f);  // far-off coordinates are clamped before becoming floats
    CHECK(mapping.clamp_x(1e12) <= 364.f);
}

TEST_CASE("wheel zoom keeps the time under the cursor - a following view keeps its right edge live") {
    TimelineViewport view;
    view.set_following(false);
    view.show({1'000, 1'000 + kNsPerS});
    const TimeNs under_cursor = view.range().start + view.range().length() / 4;
    view.zoom(0.5, 0.25);
    CHECK(view.range().length() == kNsPerS / 2);
    CHECK(std::llabs(view.range().start + view.range().length() / 4 - under_cursor) <= 1);

    TimelineViewport live;
    live.update(10 * kNsPerS);
    CHECK(live.range().end == 10 * kNsPerS);
    live.zoom(2.0, 0.1);
    live.update(11 * kNsPerS);
    CHECK(live.following());
    CHECK(live.range().end == 11 * kNsPerS);
    CHECK(live.range().length() == 2 * TimelineViewport::kDefaultLength);
}

TEST_CASE("panning pauses following - zoom is bounded - a selection is ordered and zooms to exactly itself") {
    TimelineViewport view;
    view.update(10 * kNsPerS);
    view.pan(0.5);
    CHECK_FALSE(view.following());
    CHECK(view.range().end == 10 * kNsPerS - TimelineViewport::kDefaultLength / 2);
    view.zoom(1e-12, 0.5);
    CHECK(view.range().length() == TimelineViewport::kMinLength);
    view.zoom(1e12, 0.5);
    CHECK(view.range().length() == TimelineViewport::kMaxLength);
    view.select(800, 200);
    REQUIRE(view.selection());
    CHECK(view.selection()->start == 200);
    CHECK(view.selection()->end == 800);
    view.show({2 * kNsPerS, 3 * kNsPerS});
    CHECK(view.range() == Interval{2 * kNsPerS, 3 * kNsPerS});
}

TEST_CASE("hovering a batch finds its stages on every lane, in time order") {
    TraceStore store = make_synthetic_trace(SyntheticTraceShape{6'000});
    const int64_t batch = 300;
    const auto trail =
        batch_trail(store, batch, SyntheticTraceShape{}.origin + batch * SyntheticTraceShape{}.batch_period);
    std::vector<SpanKind> kinds;
    for (const TrailStop& stop : trail) {
        CHECK(stop.span.batch == batch);
        kinds.push_back(stop.span.kind);
    }
    CHECK(kinds == std::vector<SpanKind>{SpanKind::fetch, SpanKind::pin, SpanKind::wait, SpanKind::h2d,
                                         SpanKind::kernel, SpanKind::d2h});
    CHECK(batch_trail(store, kNoBatch, 0).empty());
}

TEST_CASE("the synthetic trace holds exactly the spans asked for, sorted, with pageable and pinned copies") {
    TraceStore store = make_synthetic_trace(SyntheticTraceShape{100'001});
    CHECK(store.span_count() == 100'001);
    bool pageable = false, pinned = false;
    for (const LaneInfo& lane : store.lanes()) {
        auto spans = store.spans(lane.id);
        for (size_t i = 1; i < spans.size(); ++i) CHECK(spans[i - 1].start <= spans[i].start);
        for (const Span& s : spans)
            if (s.kind == SpanKind::h2d) (s.memory == HostMemory::pageable ? pageable : pinned) = true;
    }
    CHECK(pageable);
    CHECK(pinned);
    const auto lanes = lanes_to_draw(store);
    REQUIRE(lanes.size() == 12);
    CHECK(lanes.front().role == LaneRole::main);
    CHECK(lanes.back().role == LaneRole::d2h);
}

TEST_CASE("a counter plot's columns hold the level at their edge and the highest level inside") {
    std::vector<CounterSample> series = {{0, 1}, {11, 5}, {12, 2}, {31, 3}};
    const PixelMapping mapping{{0, 40}, 4};  // 4 columns of 10 ns
    const auto columns = counter_columns(series, mapping, 4);
    REQUIRE(columns.size() == 4);
    CHECK(columns[0].level == 1);
    CHECK(columns[1].high == 5);
    CHECK(columns[1].level == 2);
    CHECK(columns[2].level == 2);
    CHECK(columns[3].level == 3);
    CHECK(counter_peak(series) == 5);
    CHECK_FALSE(counter_columns(series, PixelMapping{{-100, -60}, 4}, 4)[0].known);
}

TEST_CASE("a selected range reports each lane's busy fraction and the overlap inside it") {
    LaneRegistry registry;
    const LaneId h2d = registry.lane(LaneRole::h2d, 0), kernel = registry.lane(LaneRole::kernel, 0);
    TraceStore store;
    store.set_lanes(registry.snapshot());
    store.add(Span{0, 400, 1, 1000, h2d, SpanKind::h2d, HostMemory::pinned});
    store.add(Span{200, 1000, 1, 0, kernel, SpanKind::kernel});
    const RangeSummary summary = summarize_range(store, {0, 1000}, 1);
    REQUIRE(summary.lanes.size() == 2);
    CHECK(summary.lanes[0].busy == doctest::Approx(0.4));
    CHECK(summary.lanes[1].busy == doctest::Approx(0.8));
    CHECK(summary.metrics.overlap == doctest::Approx(200.0 / 800));
    const RangeSummary inside = summarize_range(store, {500, 600}, 1);
    REQUIRE(inside.lanes.size() == 1);  // only the kernel runs then
    CHECK(inside.lanes[0].lane == kernel);
    CHECK(inside.lanes[0].busy == doctest::Approx(1.0));
}

TEST_CASE("every preset parses, validates, and the loading-bound one is I/O-bound with no workers") {
    const auto& presets = builtin_presets();
    REQUIRE(presets.size() >= 6);
    for (const Preset& preset : presets) {
        CAPTURE(preset.file);
        CHECK_FALSE(preset.name.empty());
        CHECK_FALSE(preset.description.empty());
        CHECK(validate(apply_preset(preset, PipelineConfig{})).ok());
    }
    const Preset* loading = find_preset("Loading-bound (io_us)");
    REQUIRE(loading);
    PipelineConfig current;
    current.device = DeviceChoice::sim;
    const PipelineConfig c = apply_preset(*loading, current);
    CHECK(c.num_workers == 0);
    CHECK(c.io_us > 0);
    CHECK(c.device == DeviceChoice::sim);  // a preset keeps the machine's choices
}

TEST_CASE("an invalid edit is held back with validate()'s message and never applied") {
    ConfigEditor editor(PipelineConfig{});
    CHECK_FALSE(editor.take_change());
    editor.edit([](PipelineConfig& c) { c.prefetch_factor = 4; });
    CHECK(editor.prefetch_factor_applies());
    auto change = editor.take_change();
    REQUIRE(change);
    CHECK(change->prefetch_factor == 4);
    CHECK(change->seconds == 0);  // the app runs unbounded

    editor.edit([](PipelineConfig& c) { c.num_workers = 0; });  // PyTorch: prefetch_factor needs workers
    CHECK_FALSE(editor.prefetch_factor_applies());
    REQUIRE(editor.error_for("prefetch_factor"));
    CHECK(editor.error_for("prefetch_factor")->message.find("num_workers > 0") != std::string::npos);
    CHECK_FALSE(editor.take_change());
    CHECK(editor.applied().num_workers == PipelineConfig{}.num_workers);

    editor.edit([](PipelineConfig& c) { c.prefetch_factor.reset(); });
    CHECK(editor.take_change());
    editor.edit([](PipelineConfig& c) { c.device = DeviceChoice::sim, c.batch_size = 7; });
    editor.reset_to_defaults();
    CHECK(editor.draft().batch_size == PipelineConfig{}.batch_size);
    CHECK(editor.draft().device == DeviceChoice::sim);
}

TEST_CASE("recording the last seconds writes a Chrome trace of just that window") {
    const auto folder = testing::scratch_path("gui_model_test");
    std::filesystem::create_directories(folder);
    const auto file = folder / "last.json";
    std::filesystem::remove(file);
    TraceStore store = make_synthetic_trace(SyntheticTraceShape{60'000});  // ~0.6 s
    const TimeNs latest = store.latest_span_end();
    RecordContext context;
    context.info.device.name = "test device";
    context.info.config = PipelineConfig{};
    context.info.config->batch_size = 64;
    Recording recording({RecordMode::last, 0.1, file}, context, latest, latest);
    recording.update(store, latest);
    while (!recording.finished()) recording.update(store, latest);
    REQUIRE(recording.phase() == RecordPhase::done);
    std::ifstream in(file);
    const nlohmann::json trace = nlohmann::json::parse(in);
    size_t slices = 0;
    for (const auto& event : trace["traceEvents"]) slices += event["ph"] == "X";
    CHECK(slices > 0);
    CHECK(slices < store.span_count() / 4);  // 0.1 s of 0.6 s, not everything
    CHECK_THROWS_AS(Recording({RecordMode::next, 0, file}, {}, 0, 0), std::invalid_argument);
    CHECK_THROWS_AS(Recording({RecordMode::next, 1, ""}, {}, 0, 0), std::invalid_argument);
    std::filesystem::remove_all(folder);
}

TEST_CASE("recording the next seconds waits for the window to pass") {
    TraceStore store;
    const auto file = testing::scratch_path("next.json");
    Recording recording({RecordMode::next, 1, file}, {}, 0, 0);
    recording.update(store, kNsPerS / 2);
    CHECK(recording.phase() == RecordPhase::capturing);
    CHECK(recording.progress(kNsPerS / 2) == doctest::Approx(0.5));
    CHECK_FALSE(std::filesystem::exists(file));
    recording.update(store, 2 * kNsPerS);
    while (!recording.finished()) recording.update(store, 2 * kNsPerS);
    CHECK(recording.phase() == RecordPhase::done);
    CHECK(std::filesystem::exists(file));
}

TEST_CASE("a recording to a folder that does not exist is refused before it starts, saying why") {
    try {
        Recording recording({RecordMode::next, 1, "/nonexistent-folder/x.json"}, {}, 0, 0);
        FAIL("a recording started that could never be written");
    } catch (const OutputPathError& e) {
        CHECK(std::string(e.what()) ==
              "/nonexistent-folder/x.json: the folder /nonexistent-folder does not exist");
    }
}

TEST_CASE("the file browser lists folders first and says why a file cannot be written") {
    const auto folder = testing::scratch_path("browser_test");
    std::filesystem::remove_all(folder);
    std::filesystem::create_directories(folder / "sub");
    std::ofstream(folder / "b.json") << "{}";
    std::ofstream(folder / "a.txt") << "x";
    FileBrowser browser(folder);
    REQUIRE(browser.entries().size() == 2);
    CHECK(browser.entries()[0].folder);
    CHECK(browser.entries()[1].name == "b.json");
    CHECK_FALSE(browser.problem().empty());  // no name yet
    browser.file_name = "trace";
    CHECK(browser.problem().empty());
    CHECK(browser.chosen() == std::filesystem::weakly_canonical(folder) / "trace.json");
    browser.enter("sub");
    CHECK(browser.entries().empty());
    browser.up();
    CHECK(browser.entries().size() == 2);
    browser.go_to(folder / "missing");
    CHECK_FALSE(browser.listing_error().empty());
    CHECK_FALSE(browser.problem().empty());
    std::filesystem::remove_all(folder);
}

TEST_CASE("frame statistics use nearest-rank percentiles - ruler steps are 1, 2 or 5 times ten to a power") {
    FrameStats stats;
    CHECK(stats.percentile(99) == 0);
    for (TimeNs t = 1; t <= 100; ++t) stats.add(t);
    CHECK(stats.percentile(50) == 50);
    CHECK(stats.percentile(99) == 99);
    CHECK(stats.max() == 100);
    CHECK(nice_step(3) == 5);
    CHECK(nice_step(120 * kNsPerMs) == 200 * kNsPerMs);
}

TEST_CASE("the timeline's rows: a header per process and device, and a folded group shows its header alone") {
    testing::ThreeProcessTrace trace;
    std::set<GroupKey> collapsed;
    std::vector<TimelineRow> rows = timeline_rows(trace.store, collapsed, "2x H100");
    std::vector<std::string> headers;
    size_t lanes = 0;
    for (const TimelineRow& row : rows) {
        if (row.header) headers.push_back(row.title);
        lanes += !row.header;
    }
    // Lanes without spans drop out: the four steps used streams 7, 13 and 21 of GPU 0 and stream 7 of GPU 1.
    CHECK(headers == std::vector<std::string>{"python train.py (pid 4100)", "DataLoader worker 0 (pid 4201)",
                                              "DataLoader worker 1 (pid 4202)",
                                              "GPU 0: NVIDIA H100 80GB HBM3",
                                              "GPU 1: NVIDIA H100 80GB HBM3"});
    CHECK(rows.front().lanes == 2);  // the train loop and the pin thread
    // pinscope's own device group ("GPU 0") is followed by the run's GPU; an imported one names its own.
    TraceStore own;
    LaneRegistry registry;
    registry.lane(LaneRole::kernel, 0);
    own.set_lanes(registry.snapshot());
    own.add(Span{0, 10, 0, 0, 0, SpanKind::kernel});
    const std::vector<TimelineRow> own_rows = timeline_rows(own, {}, "NVIDIA H100 80GB HBM3");
    REQUIRE(own_rows.size() == 2);
    CHECK(own_rows[0].title == "GPU 0: NVIDIA H100 80GB HBM3");
    const size_t all_lanes = lanes;

    collapsed.insert(GroupKey{LaneGroup::host, 4100});
    collapsed.insert(GroupKey{LaneGroup::device, 1});
    rows = timeline_rows(trace.store, collapsed);
    size_t shown = 0, folded = 0;
    for (const TimelineRow& row : rows) {
        shown += !row.header;
        if (!row.header) CHECK(!collapsed.contains(row.group));
        if (row.header) CHECK(row.collapsed == collapsed.contains(row.group));
        if (row.header && row.collapsed) folded += row.lanes;
    }
    CHECK(folded == 2 + 2);  // the main process's two threads, GPU 1's H2D and kernel lanes
    CHECK(shown == all_lanes - folded);
    CHECK(rows.size() == 5 + shown);
}

TEST_CASE("a lane whose spans nest splits into one level per depth, each in start order") {
    testing::ThreeProcessTrace trace(5);
    const LaneSpans* main = trace.store.lane(trace.main);
    REQUIRE(main);
    CHECK(main->max_depth() == 2);
    CHECK(level_count(*main) == 3);
    LaneLevels split;
    const std::span<const LaneSpans* const> levels = split.of(*main);
    REQUIRE(levels.size() == 3);
    size_t total = 0;
    for (size_t depth = 0; depth < levels.size(); ++depth) {
        const std::span<const Span> spans = levels[depth]->all();
        total += spans.size();
        for (size_t i = 0; i < spans.size(); ++i) {
            CHECK(spans[i].depth == depth);
            if (i) CHECK(spans[i - 1].start <= spans[i].start);
        }
    }
    CHECK(total == main->size());
    CHECK(levels[1]->size() == 5);                   // one operator per step
    CHECK(split.of(*main).data() == levels.data());  // kept while the lane is unchanged
    // A lane that does not nest is its own level.
    const LaneSpans* pin = trace.store.lane(trace.pin);
    REQUIRE(pin);
    CHECK(split.of(*pin).size() == 1);
    CHECK(split.of(*pin)[0] == pin);
}

TEST_CASE("in slow motion a duration reads both as drawn and as it really took, and the mark says so") {
    CHECK(stretched_duration(100 * kNsPerMs, 50) == "100.00 ms on screen, 2.00 ms real (50x slow motion)");
    CHECK(stretched_duration(2 * kNsPerMs, 1) == format_duration(2 * kNsPerMs));
    CHECK(slow_motion_mark(50) == "SLOW MOTION 50x: 1 ms real is drawn 50 ms long");
    CHECK(slow_motion_mark(1).empty());
}
