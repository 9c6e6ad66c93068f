// The desktop app's control API against a live pipeline on the simulated GPU: what a slider does, a
// test does here the same way (ConfigEditor::edit, then AppState::tick as each frame calls it).
#include <doctest/doctest.h>

#include <random>
#include <thread>

#include "app/gui/model/app_state.h"
#include "app/gui/model/lesson_player.h"
#include "app/gui/model/metric_tiles.h"
#include "core/config/config_json.h"
#include "core/config/presets.h"
#include "core/lab/lesson.h"
#include "tests/app_frames.h"
#include "tests/leak_checks.h"
#include "tests/sim_configs.h"

using namespace pinscope;
using namespace pinscope::gui;
using namespace pinscope::testing;

TEST_CASE("in the loading-bound preset, num_workers 0 -> 8 lowers the stall by at least 0.3 within 2 s") {
    const Preset* preset = find_preset("Loading-bound (io_us)");
    REQUIRE(preset);
    AppState app(apply_preset(*preset, on_sim(PipelineConfig{})));
    REQUIRE(app.editor().applied().num_workers == 0);
    run_frames(app, 1500 * kNsPerMs);
    const double before = app.history().latest().stall;

    app.editor().edit([](PipelineConfig& c) { c.num_workers = 8; });
    run_frames(app, 2 * kNsPerS);
    // The newest metrics cover the last second of those 2 s: the new pipeline's, once it was built.
    const double after = app.history().latest().stall;
    MESSAGE("stall with 0 workers: " << before << ", with 8 workers: " << after);
    CHECK(app.session()->status().config.num_workers == 8);
    CHECK(app.session()->status().state == SessionState::running);
    CHECK(before - after >= 0.3);
}

TEST_CASE("1,000 slider changes in a row: no crash, no leaked buffer, no leaked thread") {
    const ThreadCount threads;
    PipelineConfig config = on_sim(PipelineConfig{});
    config.sample_shape.dims = {3, 32, 32};  // small batches: rebuilds are quick on 2 cores
    config.batch_size = 16;
    config.kernel_us = 200;
    {
        AppState app(config);
        std::mt19937 random(11);
        auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(random); };
        int refused = 0;
        for (int i = 0; i < 1000; ++i) {
            // One knob per change, as dragging one slider or ticking one box does.
            app.editor().edit([&](PipelineConfig& c) {
                switch (i % 9) {
                    case 0:
                        c.num_workers = pick(0, 8);
                        break;
                    case 1:
                        c.prefetch_factor = pick(0, 3) ? std::optional<int>(pick(1, 4)) : std::nullopt;
                        break;
                    case 2:
                        c.pin_memory = !c.pin_memory;
                        break;
                    case 3:
                        c.pin_mode = pick(0, 1) ? PinMode::thread : PinMode::direct;
                        break;
                    case 4:
                        c.batch_size = pick(1, 64);
                        break;
                    case 5:
                        c.streams = pick(1, 4);
                        break;
                    case 6:
                        c.chunks = pick(1, 4);
                        break;
                    case 7:
                        c.non_blocking = !c.non_blocking, c.in_order = pick(0, 1);
                        break;
                    case 8:
                        c.io_us = pick(0, 2) * 50.0, c.kernel_us = pick(50, 500);
                        break;
                }
            });
            if (!app.editor().validation().ok()) ++refused;  // e.g. prefetch_factor with 0 workers
            app.tick();
            app.end_frame();
            REQUIRE(app.session()->status().state == SessionState::running);
            if (i % 50 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        MESSAGE(refused << " of 1000 edits were invalid and held back; " << app.editor().changes_taken()
                        << " were applied");
        CHECK(refused > 0);  // the sequence does exercise the inline error path
        // Make the draft valid, then wait for the pipeline to run it (a hang detector, not a speed check).
        app.editor().edit([](PipelineConfig& c) {
            if (c.num_workers == 0) c.prefetch_factor.reset();
        });
        run_frames(app, kFrame);
        const TimeNs deadline = now_ns() + 60 * kNsPerS;
        while (app.session()->status().config != app.editor().applied() && now_ns() < deadline)
            run_frames(app, kFrame);
        const int64_t batches = app.session()->status().batches;
        while (app.session()->status().batches <= batches && now_ns() < deadline) run_frames(app, kFrame);
        CHECK(app.session()->status().config == app.editor().applied());
        CHECK(app.session()->status().batches > batches);
        CHECK(app.session()->status().generation >= 10);
        app.tick();
        CHECK(app.store().span_count() <= kLiveTraceLimits.max_spans);
        app.end_frame();

        app.session()->stop();
        CHECK(threads.threads_back());
        check_nothing_held(app.session()->device_resources());
    }
    CHECK(threads.threads_back());
}

TEST_CASE("a worker's error shows in the status - fixing the knob starts a new run") {
    PipelineConfig config = on_sim(PipelineConfig{});
    config.sample_shape.dims = {3, 16, 16};
    config.fail_at_sample = 100;
    AppState app(config);
    const TimeNs deadline = now_ns() + 30 * kNsPerS;
    while (app.session()->status().state == SessionState::running && now_ns() < deadline)
        run_frames(app, kFrame);
    REQUIRE(app.session()->status().state == SessionState::failed);
    CHECK(app.session()->status().error.find("ValueError") != std::string::npos);

    app.editor().edit([](PipelineConfig& c) { c.fail_at_sample = -1; });
    app.tick();
    app.end_frame();
    CHECK(app.apply_error().empty());
    CHECK(app.session()->restarts() == 1);
    CHECK(app.session()->status().state == SessionState::running);
    run_frames(app, 300 * kNsPerMs);
    CHECK(app.session()->status().batches > 0);
}

TEST_CASE("a lesson shown at 50x slow motion stays at 50x from one of its runs to the next") {
    const Lesson* lesson = find_lesson("overlap-copy-engines");
    REQUIRE(lesson);
    REQUIRE(lesson->runs.size() >= 3);
    PipelineConfig machine = on_sim(PipelineConfig{});
    machine.sample_shape.dims = {3, 16, 16};  // a small run to start from: the lesson's replaces it
    AppState app(machine);
    LessonPlayer player;
    player.open(*lesson, app.editor().applied());
    app.editor().edit([&](PipelineConfig& draft) { draft = player.live_config(0, app.editor().applied()); });
    app.editor().edit([](PipelineConfig& draft) { draft.slow_motion = 50; });  // the teacher's choice
    run_frames(app, 200 * kNsPerMs);
    for (size_t run = 1; run < lesson->runs.size(); ++run) {
        CAPTURE(lesson->runs[run].id);
        const PipelineConfig on_screen = app.editor().applied();
        app.editor().edit([&](PipelineConfig& draft) { draft = player.live_config(run, on_screen); });
        run_frames(app, 100 * kNsPerMs);
        CHECK(app.apply_error().empty());
        CHECK(app.session()->status().config.slow_motion == 50);
        CHECK(app.slow_motion() == 50);
        PipelineConfig expected = player.run_config(run);  // the run itself, but for its speed
        expected.slow_motion = 50;
        expected.seconds = 0;  // the app runs unbounded
        expected.batches = 0;
        CHECK(config_to_json(app.editor().applied()).dump() == config_to_json(expected).dump());
    }
}

TEST_CASE("a lesson whose promise misses on the first runs counts its second and third runs in progress") {
    const Lesson* lesson = find_lesson("workers-hide-decode");
    REQUIRE(lesson);
    LessonPlayer player;
    player.open(*lesson, on_sim(PipelineConfig{}));
    // Every run the same: "8 workers stall at least 0.3 less than 0" cannot hold, first time or third.
    const Measure alike = [](const PipelineConfig&) {
        return nlohmann::json{{"samples_per_s", 1000.0}, {"stall", 0.5}};
    };
    player.reveal(0, alike);
    while (player.measuring()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    REQUIRE(player.outcome());
    CHECK_FALSE(player.outcome()->kept());
    CHECK(player.outcome()->measurements == kMeasurementsOnAMiss);
    const auto [done, total] = player.progress();
    CHECK(done == total);
    CHECK(total >= kMeasurementsOnAMiss * static_cast<int>(lesson->runs.size()));
}

TEST_CASE("a paused pipeline says PAUSED in the status bar and on the tiles of rates and shares") {
    PipelineConfig config = on_sim(PipelineConfig{});
    config.sample_shape.dims = {3, 16, 16};
    AppState app(config);
    run_frames(app, 300 * kNsPerMs);
    CHECK(std::string(app.session()->state_word()) == "RUNNING");
    app.session()->set_paused(true);
    run_frames(app, 50 * kNsPerMs);
    CHECK(std::string(app.session()->state_word()) == "PAUSED");
    const bool paused = app.session()->paused();
    for (const MetricTile& tile : metric_tiles()) {
        CAPTURE(tile.title);
        const std::string value = tile_value(tile, app.headline(), paused);
        const bool over_time =
            tile.kind == TileKind::rate || tile.kind == TileKind::share || tile.kind == TileKind::idle;
        CHECK((value == "PAUSED") == over_time);
        if (!over_time) CHECK(value.ends_with(" now"));  // a level is still true while the run waits
    }
    app.session()->set_paused(false);
    run_frames(app, 50 * kNsPerMs);
    CHECK(std::string(app.session()->state_word()) == "RUNNING");
}
