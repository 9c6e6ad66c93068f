// The desktop app with captures, without a window: viewing one, comparing two aligned at a batch,
// loading in the background, the recent list, recording and exporting to files.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "app/gui/model/app_state.h"
#include "app/gui/model/capture_loader.h"
#include "app/gui/model/file_browser.h"
#include "app/gui/model/recent_files.h"
#include "app/gui/model/recording.h"
#include "app/gui/model/synthetic_trace.h"
#include "app/gui/model/view_export.h"
#include "core/io/capture.h"
#include "core/io/metrics_json.h"
#include "scratch.h"

using namespace pinscope;
using namespace pinscope::gui;

namespace {

std::filesystem::path test_folder(const std::string& name) {
    const auto folder = testing::scratch_path(name);
    std::filesystem::remove_all(folder);
    std::filesystem::create_directories(folder);
    return folder;
}

// A synthetic run as a capture: `spans` spans starting at `origin`, described as a small sim run.
Capture synthetic_capture(size_t spans, TimeNs origin = 1'000 * kNsPerS, bool pin_memory = true) {
    Capture capture;
    SyntheticTraceShape shape;
    shape.spans = spans;
    shape.origin = origin;
    capture.store = make_synthetic_trace(shape);
    capture.info.config = PipelineConfig{};
    capture.info.config->batch_size = 32;
    capture.info.config->pin_memory = pin_memory;
    capture.info.device.name = "simulated GPU (test)";
    capture.info.device.h2d_peak_gbps = 54;
    capture.info.window = {capture.store.first_time() + kNsPerS / 10, capture.store.last_time()};
    return capture;
}

std::filesystem::path saved(const Capture& capture, const std::filesystem::path& file) {
    save_capture(file, capture.store, capture.info);
    return file;
}

template <class Loader>
void wait_until_ready(const Loader& loader) {
    for (int i = 0; i < 2000 && !loader.ready(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    REQUIRE(loader.ready());
}

}  // namespace

TEST_CASE(
    "a viewed capture shows its spans, device and config, and its tiles read its whole-window metrics") {
    Capture capture = synthetic_capture(50'000);
    const Metrics whole = capture_metrics(capture);
    const size_t spans = capture.store.span_count();
    AppState state(std::move(capture));
    CHECK_FALSE(state.live());
    REQUIRE(state.capture() != nullptr);
    CHECK(state.store().span_count() == spans);
    REQUIRE(state.device() != nullptr);
    CHECK(state.device()->name == "simulated GPU (test)");
    CHECK(state.editor().applied().batch_size == 32);
    CHECK(state.batch_size() == 32);
    CHECK(state.headline().samples_per_s == whole.samples_per_s);
    CHECK(state.headline().h2d_gbps == whole.h2d_gbps);
    CHECK(state.headline().gpu_idle == whole.gpu_idle);
    // The plots span the capture, start to end, not its last minute only.
    REQUIRE(state.history().samples().size() > 100);
    CHECK(state.history().samples().front().time < state.capture()->info.window.start + kNsPerS);
    CHECK(state.history().samples().back().time <= state.capture()->info.window.end);
    state.tick();  // a viewer ticks without a pipeline
    CHECK(state.store().span_count() == spans);
}

TEST_CASE("two captures compare aligned at the first batch both measured, and at any batch asked for") {
    // B ran 7 s later on the clock: aligned, its batches start where A's do.
    AppState state(synthetic_capture(30'000));
    state.compare_with(synthetic_capture(30'000, 1'007 * kNsPerS, false));
    const AppState::Comparison* c = state.comparison();
    REQUIRE(c != nullptr);
    CHECK(c->batch != kNoBatch);
    CHECK(c->shift == -7 * kNsPerS);
    const auto a = state.store().batch_extent(c->batch), b = c->other.store.batch_extent(c->batch);
    REQUIRE((a && b));
    CHECK(b->first_start + c->shift == a->first_start);
    CHECK(b->first_start >= c->other.info.window.start);  // past start-up in B too

    const int64_t first = c->batch;
    CHECK(state.align_comparison(first + 10));
    CHECK(c->batch == first + 10);
    CHECK(c->shift == -7 * kNsPerS);                  // the same run, later: every batch lines up alike
    CHECK_FALSE(state.align_comparison(10'000'000));  // in neither: nothing moves
    CHECK(c->batch == first + 10);
    CHECK(c->mine.samples_per_s > 0);
    CHECK(c->theirs.samples_per_s > 0);
    state.end_comparison();
    CHECK(state.comparison() == nullptr);

    AppState synthetic(make_synthetic_trace(SyntheticTraceShape{1000}));
    CHECK_THROWS_AS(synthetic.compare_with(synthetic_capture(1000)), std::logic_error);
}

TEST_CASE("a capture loads in the background to a view, or to an error naming the file") {
    const auto folder = test_folder("loader");
    const auto good = saved(synthetic_capture(20'000), folder / "good.pinscope");
    CaptureLoader loader(good, CaptureLoader::Purpose::view);
    wait_until_ready(loader);
    std::unique_ptr<AppState> view = loader.take_view();
    REQUIRE(view != nullptr);
    CHECK(view->store().span_count() == 20'000);
    CHECK(loader.error().empty());
    CHECK(loader.progress() == 1.0);

    CaptureLoader compare(good, CaptureLoader::Purpose::compare);
    wait_until_ready(compare);
    std::optional<Capture> other = compare.take_capture();
    REQUIRE(other.has_value());
    CHECK(other->path == good);

    // Too big for the memory it may take: the first part that fits opens, and says it is a part.
    const CaptureSize size = capture_size(good);
    CaptureLoader part(good, CaptureLoader::Purpose::view, std::nullopt, size.memory_bytes / 4);
    wait_until_ready(part);
    std::unique_ptr<AppState> part_view = part.take_view();
    REQUIRE(part_view != nullptr);
    REQUIRE(part_view->capture());
    REQUIRE(part_view->capture()->info.loaded_range);
    const MetricsWindow window = part_view->capture()->info.window;
    CHECK(part_view->capture()->info.loaded_range->end - part_view->capture()->info.loaded_range->start ==
          doctest::Approx(static_cast<double>(window.end - window.start) / 4).epsilon(0.01));
    CHECK(part_view->time_origin() == window.start);  // the whole capture's clock
    CaptureLoader whole(good, CaptureLoader::Purpose::view, std::nullopt, size.memory_bytes);
    wait_until_ready(whole);
    CHECK(!whole.take_view()->capture()->info.loaded_range);

    std::ofstream(folder / "bad.pinscope") << "PINSCOPE and then nothing useful";
    CaptureLoader bad(folder / "bad.pinscope", CaptureLoader::Purpose::view);
    wait_until_ready(bad);
    CHECK(bad.take_view() == nullptr);
    CHECK(bad.error().find((folder / "bad.pinscope").string()) == 0);
    std::filesystem::remove_all(folder);
}

TEST_CASE("open recent keeps ten files, newest first, once each, across restarts") {
    const auto folder = test_folder("recent");
    const auto list = folder / "config" / "recent.json";
    {
        RecentFiles recent(list);
        CHECK(recent.files().empty());
        for (int i = 0; i < 12; ++i) {
            char name[32];
            std::snprintf(name, sizeof name, "c%d.pinscope", i);
            recent.add(folder / name);
        }
        recent.add(folder / "c5.pinscope");
        REQUIRE(recent.files().size() == RecentFiles::kMaxFiles);
        CHECK(recent.files().front() == folder / "c5.pinscope");
        CHECK(recent.files()[1] == folder / "c11.pinscope");
        CHECK(std::count(recent.files().begin(), recent.files().end(), folder / "c5.pinscope") == 1);
    }
    RecentFiles again(list);
    CHECK(again.files().size() == RecentFiles::kMaxFiles);
    CHECK(again.files().front() == folder / "c5.pinscope");
    again.forget(folder / "c5.pinscope");
    CHECK(RecentFiles(list).files().front() == folder / "c11.pinscope");
    std::ofstream(list) << "not json";
    CHECK(RecentFiles(list).files().empty());
    std::filesystem::remove_all(folder);
}

TEST_CASE("recording to a .pinscope file writes a capture of that window with the run's description") {
    const auto folder = test_folder("record");
    const Capture source = synthetic_capture(60'000);
    const TimeNs latest = source.store.latest_span_end();
    RecordContext context{source.info};
    Recording recording({RecordMode::last, 0.1, folder / "last.pinscope"}, context, latest, latest);
    while (!recording.finished()) recording.update(source.store, latest);
    REQUIRE(recording.phase() == RecordPhase::done);
    const Capture written = load_capture(folder / "last.pinscope");
    CHECK(written.info.device.name == "simulated GPU (test)");
    CHECK(written.info.window.end - written.info.window.start == kNsPerS / 10);
    CHECK(written.store.span_count() > 0);
    CHECK(written.store.span_count() < source.store.span_count() / 4);
    CHECK(written.info.metrics == metrics_json(capture_metrics(written)));
    std::filesystem::remove_all(folder);
}

TEST_CASE("exporting the view writes a picture, a trace or CSV of just that stretch, or says what is wrong") {
    const auto folder = test_folder("export");
    const Capture capture = synthetic_capture(20'000);
    const Interval view{capture.store.first_time(), capture.store.first_time() + kNsPerS / 20};
    const auto run = [&](ExportFormat format, const std::filesystem::path& file) {
        ViewExport job({format, file, 800, 400}, capture.store, view, capture.info);
        while (!job.done()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
        const std::string message = job.message();
        CHECK_FALSE(job.failed());
        return message;
    };
    CHECK(run(ExportFormat::png, folder / "view.png").find("800x400") != std::string::npos);
    CHECK(std::filesystem::file_size(folder / "view.png") > 1000);
    run(ExportFormat::svg, folder / "view.svg");
    CHECK(std::filesystem::file_size(folder / "view.svg") > 1000);
    run(ExportFormat::csv, folder / "view.csv");
    CHECK(std::filesystem::exists(folder / "view.metrics.csv"));
    run(ExportFormat::perfetto, folder / "view.json");
    CHECK(std::filesystem::file_size(folder / "view.json") > 1000);
    CHECK_THROWS_AS(ViewExport({ExportFormat::png, folder / "view.svg"}, capture.store, view, capture.info),
                    std::invalid_argument);
    CHECK_THROWS_AS(
        ViewExport({ExportFormat::png, folder / "tiny.png", 10, 10}, capture.store, view, capture.info),
        std::invalid_argument);
    // A place that cannot be written is refused before any work, as is a capture the export would replace.
    CHECK_THROWS_WITH_AS(
        ViewExport({ExportFormat::png, "/nonexistent-folder/x.png"}, capture.store, view, capture.info),
        "/nonexistent-folder/x.png: the folder /nonexistent-folder does not exist", OutputPathError);
    save_capture(folder / "kept.json", capture.store, capture.info);
    CHECK_THROWS_WITH_AS(
        ViewExport({ExportFormat::perfetto, folder / "kept.json"}, capture.store, view, capture.info),
        doctest::Contains("that file is a pinscope capture, which writing the export there would destroy"),
        OutputPathError);
    CHECK(looks_like_capture(folder / "kept.json"));
    std::filesystem::remove_all(folder);
}

TEST_CASE("the open dialog lists captures and says why a file cannot be opened") {
    const auto folder = test_folder("open");
    std::ofstream(folder / "a.pinscope") << "x";
    std::ofstream(folder / "b.json") << "{}";
    FileBrowser browser(folder, {".pinscope"}, FileBrowser::Mode::open);
    REQUIRE(browser.entries().size() == 1);
    CHECK(browser.entries()[0].name == "a.pinscope");
    browser.file_name = "missing";
    CHECK(browser.problem().find("no file missing.pinscope") != std::string::npos);
    browser.file_name = "a";
    CHECK(browser.problem().empty());
    CHECK(browser.chosen().filename() == "a.pinscope");
    std::filesystem::remove_all(folder);
}
