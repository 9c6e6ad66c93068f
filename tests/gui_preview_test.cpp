// The Controls' preview: edits held back from the running pipeline with the predictor's word on what they
// change, then applied or discarded (ConfigEditor, PredictionPreview and AppState, without a window).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <thread>

#include "app/gui/model/app_state.h"
#include "app/gui/model/prediction_preview.h"
#include "core/config/presets.h"
#include "tests/app_frames.h"
#include "tests/sim_configs.h"

using namespace pinscope;
using namespace pinscope::gui;
using namespace pinscope::testing;

TEST_CASE("in preview an edit waits in the draft until Apply, and Discard puts the draft back") {
    ConfigEditor editor(PipelineConfig{});
    editor.set_previewing(true);
    editor.edit([](PipelineConfig& c) { c.num_workers = 5; });
    CHECK(editor.has_edits());
    CHECK_FALSE(editor.has_pending_change());
    CHECK_FALSE(editor.take_change());
    CHECK(editor.applied().num_workers == PipelineConfig{}.num_workers);

    editor.discard_edits();
    CHECK(editor.draft().num_workers == PipelineConfig{}.num_workers);
    CHECK_FALSE(editor.has_edits());

    editor.edit([](PipelineConfig& c) { c.num_workers = 6; });
    editor.apply_edits();
    const std::optional<PipelineConfig> applied = editor.take_change();
    REQUIRE(applied);
    CHECK(applied->num_workers == 6);
    CHECK(editor.previewing());  // Apply hands over one set of edits; the preview stays on
    editor.edit([](PipelineConfig& c) { c.num_workers = 7; });
    CHECK_FALSE(editor.take_change());

    editor.set_previewing(false);  // turning it off hands over what it held
    REQUIRE(editor.has_pending_change());
    CHECK(editor.take_change()->num_workers == 7);
}

TEST_CASE("the preview has nothing before its model is ready, then asks it once per config") {
    bool ready = false;
    int readied = 0, asked = 0;
    PredictionPreview preview({.ready = [&] { return ready; },
                               .get_ready =
                                   [&] {
                                       ++readied;
                                       ready = true;
                                   },
                               .would_measure = [] { return true; },
                               .predict =
                                   [&](const PipelineConfig& config, double others) {
                                       ++asked;
                                       Metrics m;
                                       m.samples_per_s =
                                           1000.0 * config.num_workers * (2 - others) / 2;  // 2 cores
                                       return std::optional(m);
                                   }});
    PipelineConfig two, four;
    two.num_workers = 2, four.num_workers = 4;
    CHECK_FALSE(preview.predicted(two));
    CHECK(asked == 0);
    CHECK(preview.prepare());
    while (preview.preparing()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    CHECK_FALSE(preview.prepare());  // ready: nothing more to do
    CHECK(readied == 1);
    for (int frame = 0; frame < 10; ++frame) {
        REQUIRE(preview.predicted(two));
        CHECK(preview.predicted(two)->samples_per_s == 2000);
        CHECK(preview.predicted(four)->samples_per_s == 4000);
    }
    CHECK(asked == 2);

    // Other work on the machine (the app's frames) takes cores: predictions are asked again with it, but
    // only once it moves by a tenth of a core.
    preview.set_others(0.5);
    CHECK(preview.others() == 0.5);
    CHECK(preview.predicted(two)->samples_per_s == 1500);
    CHECK(asked == 3);
    preview.set_others(0.52);
    CHECK(preview.predicted(two)->samples_per_s == 1500);
    CHECK(asked == 3);
    preview.set_others(1.2);
    CHECK(preview.predicted(two)->samples_per_s == doctest::Approx(800));
    CHECK(asked == 4);
}

// Where the host's rates are kept from earlier invocations (core/model/recent_host_rates.h), readying the
// predictor reads them: nothing runs on a thread and the owner has no pipeline to stop.
TEST_CASE("a preview whose model has its figures at hand readies at once, with nothing to stop") {
    bool ready = false;
    int readied = 0;
    PredictionPreview preview(
        {.ready = [&] { return ready; },
         .get_ready =
             [&] {
                 ++readied;
                 ready = true;
             },
         .would_measure = [] { return false; },
         .predict = [](const PipelineConfig&, double) { return std::optional(Metrics{}); }});
    CHECK_FALSE(preview.prepare());  // the owner keeps the pipeline running
    CHECK(readied == 1);             // read on this thread, before prepare() returned
    CHECK_FALSE(preview.preparing());
    CHECK(preview.ready());
    CHECK(preview.predicted(PipelineConfig{}));
    CHECK_FALSE(preview.prepare());
    CHECK(readied == 1);
}

TEST_CASE("hovering a slider shows the predicted samples/s across its range, with the value now marked") {
    int asked = 0;
    PredictionPreview preview({.ready = [] { return true; },
                               .get_ready = [] {},
                               .would_measure = [] { return false; },
                               .predict =
                                   [&](const PipelineConfig& config, double) {
                                       ++asked;
                                       Metrics m;
                                       m.samples_per_s = 1000.0 * std::min<int64_t>(config.num_workers, 6);
                                       return std::optional(m);
                                   }});
    PipelineConfig base = on_sim();
    base.num_workers = 3;
    const Knob& workers = knob("num_workers");
    const PredictionPreview::Curve* curve = preview.curve(base, workers);
    REQUIRE(curve);
    REQUIRE(curve->values.size() == curve->samples_per_s.size());
    CHECK(curve->values.size() >= 9);
    CHECK(curve->values.size() <= PredictionPreview::kCurvePoints + 1);
    CHECK(curve->values.front() == workers.slider_low());
    CHECK(curve->values.back() == workers.slider_high());
    CHECK(curve->values[curve->nearest] == 3);  // the value now is a point of its own
    CHECK(curve->samples_per_s[curve->nearest] == 3000);
    CHECK(curve->samples_per_s.back() == 6000);
    const int asked_once = asked;
    CHECK(preview.curve(base, workers) == curve);  // kept: hovering costs nothing after the first frame
    CHECK(asked == asked_once);

    // A config that validate() refuses is no point of the curve (prefetch_factor with num_workers=0).
    base.prefetch_factor = 4;
    const PredictionPreview::Curve* with_prefetch = preview.curve(base, workers);
    REQUIRE(with_prefetch);
    CHECK(std::isnan(with_prefetch->samples_per_s.front()));
    CHECK_FALSE(std::isnan(with_prefetch->samples_per_s[1]));

    // Knobs the model leaves out, and a real GPU, have no curve.
    CHECK(preview.curve(base, knob("seed")) == nullptr);
    base.device = DeviceChoice::cuda;
    CHECK(preview.curve(base, workers) == nullptr);
}

TEST_CASE(
    "previewing a live run measures the host with the pipeline stopped, predicts an edit, and Apply "
    "moves the measured stall the way the prediction said") {
    const Preset* preset = find_preset("Loading-bound (io_us)");
    REQUIRE(preset);
    AppState app(apply_preset(*preset, on_sim(PipelineConfig{})));
    REQUIRE(app.editor().applied().num_workers == 0);
    run_frames(app, 500 * kNsPerMs);

    app.set_previewing(true);
    if (app.measuring_host()) {  // the first preview of this process
        app.tick();
        CHECK(app.session()->status().state != SessionState::running);
        app.end_frame();
        while (app.measuring_host()) run_frames(app, 50 * kNsPerMs);
    }
    run_frames(app, 1500 * kNsPerMs);
    const double stall_before = app.history().latest().stall;

    app.editor().edit([](PipelineConfig& c) { c.num_workers = 8; });
    run_frames(app, 200 * kNsPerMs);
    CHECK(app.session()->status().config.num_workers == 0);  // held back
    CHECK(app.session()->status().state == SessionState::running);
    const std::optional<Metrics> now = app.preview().predicted(app.editor().applied());
    const std::optional<Metrics> edited = app.preview().predicted(app.editor().draft());
    REQUIRE(now);
    REQUIRE(edited);
    MESSAGE("predicted: stall " << now->stall << " -> " << edited->stall << ", samples/s "
                                << now->samples_per_s << " -> " << edited->samples_per_s);
    CHECK(edited->samples_per_s > 2 * now->samples_per_s);
    CHECK(now->stall - edited->stall >= 0.3);

    app.editor().apply_edits();
    run_frames(app, 2 * kNsPerS);
    CHECK(app.session()->status().config.num_workers == 8);
    const double stall_after = app.history().latest().stall;
    MESSAGE("measured: stall " << stall_before << " -> " << stall_after);
    CHECK(stall_before - stall_after >= 0.3);
}
