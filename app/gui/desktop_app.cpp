#include "app/gui/desktop_app.h"

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cstdio>
#include <thread>

#include <fmt/format.h>
#include <imgui.h>

#include "app/gui/compare_panel.h"
#include "app/gui/keys.h"
#include "app/gui/layout_measure.h"
#include "app/gui/metrics_window.h"
#include "app/gui/screenshot.h"
#include "app/gui/status_bar.h"
#include "core/config/knobs.h"
#include "core/lab/trace_replay.h"
#include "core/model/predict.h"
#include "core/units/units.h"

namespace pinscope::gui {
namespace {

constexpr TimeNs kFramePeriod = kNsPerS / 60;  // 60 fps at most: a live pipeline needs real time to show
// While a lesson or a sweep measures its runs, the live pipeline is paused and the screen shows only a
// progress bar: a frame a second, or at once on input, leaves the cores to the runs. At 32 fps under
// Xvfb's software OpenGL the app's drawing took most of a core on this 2-core machine, and
// workers-hide-decode measured 3385 samples/s with 2 workers in the app against 6426 headless (8 workers
// 1.55x of 2 against 1.02x); at 2 fps the drawing still took 7% of a core and the app measured 6% less.
constexpr double kMeasuringFrameSeconds = 1.0;
constexpr int kWarmUpFrames = 3;  // the first frames build fonts and caches: not counted
constexpr float kFontStep = 0.125f;
constexpr size_t kSamplesBeforeZoom = 6;  // 1.5 s of live metrics

}  // namespace

DesktopApp::DesktopApp(std::unique_ptr<AppState> state, AppWindow& window, const GuiOptions& options,
                       PipelineConfig machine)
    : state_(std::move(state)),
      machine_(std::move(machine)),
      window_(window),
      options_(options),
      wanted_(options.ui) {
    if (options.open_window == "record") record_.open();
    if (options.open_window == "save") record_.open(), record_.open_file_dialog();
    show_help_ = options.open_window == "shortcuts";
    if (!options.lesson.empty()) {
        show_lessons_ = true;
        const std::vector<Lesson>& all = builtin_lessons();
        for (size_t i = 0; i < all.size(); ++i)
            if (&all[i] == find_lesson(options.lesson)) lessons_.open(*state_, i);
        lessons_.player().go_to(options.lesson_page);
    }
    if (options.presentation) set_presentation(true);
    if (options.open_window == "advisor") advisor_.open();
    sweep_.set_predictor(predicted_samples_per_s);
    if (options.open_window == "sweep" || options.run_sweep > 0) sweep_.open();
    if (options.run_sweep > 0) sweep_.run(*state_, options.run_sweep);
    controls_collapsed_ = options.controls_collapsed;
    if (!options.preview_edits.empty()) hold_for_preview(options.preview_edits);
    if (options.preset) {
        controls_.select_preset(options.preset);
        show_at_its_zoom(*options.preset);
    }
    if (options.view_seconds > 0) {  // asked for: it holds, for a capture too (the middle of it)
        timeline_.viewport().set_length(static_cast<TimeNs>(options.view_seconds * 1e9));
        timeline_.set_opening_length(static_cast<TimeNs>(options.view_seconds * 1e9));
        zoom_settled_ = true;
    }
    if (!options.open_file.empty())
        files_.open(options.open_file, CaptureLoader::Purpose::view,
                    options.open_range.empty() ? std::nullopt
                                               : std::optional(parse_capture_range(options.open_range)));
    using R = GuiOptions::SpanRendering;
    if (options.span_rendering == R::gpu ||
        (options.span_rendering == R::automatic && !window.software_gl())) {
        span_renderer_ = std::make_unique<SpanRenderer>();
        if (!span_renderer_->available())
            fmt::print(stderr, "pinscope: spans are drawn with draw lists: {}\n", span_renderer_->problem());
        timeline_.set_span_renderer(span_renderer_.get());
    }
}

// Says how the timeline's spans are drawn this frame, for the status bar and --frame-stats.
std::string DesktopApp::span_drawing() const {
    if (!span_renderer_)
        return options_.span_rendering == GuiOptions::SpanRendering::draw_lists
                   ? "spans: draw lists (--renderer drawlist)"
                   : "spans: draw lists (software OpenGL)";
    if (!span_renderer_->available()) return "spans: draw lists (GPU shaders unavailable)";
    if (state_->live()) return "spans: draw lists (live)";
    return "spans: GPU shaders";
}

void DesktopApp::replace_state(std::unique_ptr<AppState> state) {
    state_ = std::move(state);
    timeline_.reset();
    zoom_settled_ = false;
}

// A capture's config, live on this machine: its workload with this machine's device and calibration.
void DesktopApp::run_live(PipelineConfig config) {
    if (const Capture* capture = state_->capture(); capture && !capture->info.config_problem.empty()) {
        files_.report_error("cannot run this capture's config live: it would not run (" +
                            capture->info.config_problem + ")");
        return;
    }
    keep_machine_knobs(config, machine_);
    try {
        replace_state(std::make_unique<AppState>(config));
    } catch (const std::exception& e) {
        files_.report_error("cannot run the capture's config here: " + std::string(e.what()));
    }
}

// --preview-edit (screenshots): the preview on, holding these edits, once the predictor is ready.
void DesktopApp::hold_for_preview(const std::vector<std::string>& edits) {
    if (!state_->live()) return;
    state_->set_previewing(true);
    while (state_->preview().preparing()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    for (const std::string& edit : edits) {
        const size_t eq = edit.find('=');
        const Knob& changed = knob(edit.substr(0, eq));  // gui_command.cpp checked both parts
        const nlohmann::json value = changed.parse(edit.substr(eq + 1));
        state_->editor().edit([&](PipelineConfig& c) { changed.set(c, value); });
    }
    // What the panel will show, for the tests that check the screenshot's run.
    const ConfigEditor& editor = state_->editor();
    for (const KnobDifference& d : knob_differences(editor.applied(), editor.draft()))
        fmt::print("preview: {}: {} -> {}\n", d.knob->key, d.a, d.b);
    const std::optional<Metrics> now = state_->preview().predicted(editor.applied()),
                                 edited = state_->preview().predicted(editor.draft());
    if (now && edited)
        fmt::print("preview: predicted samples/s {:.0f} -> {:.0f}, GPU waiting for data {} -> {}\n",
                   now->samples_per_s, edited->samples_per_s, format_share(now->stall),
                   format_share(edited->stall));
}

void DesktopApp::take_changes() {
    for (const std::string& dropped : window_.take_dropped_files()) files_.open(dropped);
    if (std::unique_ptr<AppState> view = files_.take_view()) {
        replace_state(std::move(view));
        // --compare: B once A is open
        if (!options_.compare_file.empty())
            files_.open(std::exchange(options_.compare_file, {}), CaptureLoader::Purpose::compare);
    }
    if (std::optional<Capture> other = files_.take_compare()) {
        if (state_->capture()) state_->compare_with(std::move(*other));
    }
    // An imported profiler trace runs live as the lab's model of it (core/lab/trace_replay.h).
    if (controls_.take_replay() && state_->capture() && !state_->capture()->info.config) {
        try {
            PipelineConfig model = model_of_trace(*state_->capture()).config;
            model.device = DeviceChoice::sim;
            model.seconds = 0;  // live: until stopped
            run_live(model);
        } catch (const std::invalid_argument& e) {
            files_.report_error(std::string("cannot replay this trace: ") + e.what());
        }
    }
    // A trace pinscope did not run has no config to run live: the button is not offered for it.
    if (files_.take_run_live() && state_->capture() && state_->capture()->info.config)
        run_live(*state_->capture()->info.config);
    // The sweep stopped the live pipeline so as not to share the cores with it: it starts again.
    if (sweep_.take_resume() && state_->session()) state_->session()->apply(state_->editor().applied());
}

// Presentation mode: the Lessons panel beside the timeline in large type, full screen (but for headless
// frames, whose size was asked for).
void DesktopApp::set_presentation(bool on) {
    if (on == presentation_) return;
    presentation_ = on;
    if (on) {
        show_lessons_ = true;
        font_before_presentation_ = wanted_.font_scale;
        wanted_.font_scale = std::max(wanted_.font_scale, 1.5f);
    } else {
        wanted_.font_scale = font_before_presentation_;
    }
    if (options_.frames == 0) window_.set_fullscreen(on);
}

// The teacher's keys for the pipeline: P pauses or resumes, N lets one batch through while paused.
void DesktopApp::pipeline_keys() {
    LiveSession* live = state_->session();
    if (!live || ImGui::GetIO().WantTextInput || ImGui::GetIO().KeyCtrl) return;
    if (ImGui::IsKeyPressed(keys::kP, false)) live->set_paused(!live->paused());
    if (ImGui::IsKeyPressed(keys::kN) && live->paused()) live->step();
}

void DesktopApp::show_at_its_zoom(const Preset& preset) {
    if (preset.view_seconds <= 0) return;
    timeline_.viewport().set_length(static_cast<TimeNs>(preset.view_seconds * 1e9));
    zoom_settled_ = true;
}

// A new run opens on readable batches, not a barcode: once its rate past start-up is known, the view
// shows about a dozen batch periods (within 5 ms and 2 s). A zoom the user, a preset or --view-seconds
// chose is never overridden.
void DesktopApp::settle_zoom() {
    if (zoom_settled_ || !state_->live()) return;
    const std::deque<MetricsSample>& samples = state_->history().samples();
    // The first second holds the pipeline's start-up (threads, pinned allocations): rate it after that.
    if (samples.size() < kSamplesBeforeZoom || state_->history().latest().batches_per_s <= 0) return;
    const double period = 1.0 / state_->history().latest().batches_per_s;
    const TimeNs length = static_cast<TimeNs>(std::clamp(12 * period, 0.005, 2.0) * 1e9);
    timeline_.viewport().set_length(length);
    zoom_settled_ = true;
}

int DesktopApp::run() {
    const bool bounded = options_.frames > 0;
    TimeNs next_frame = now_ns();
    // --frames counts the frames that show what was asked for: while a capture named at start is still
    // loading, or a sweep or a lesson measures its runs (their progress is drawn meanwhile), frames do
    // not count.
    for (int frame = 1; !quit_ && !window_.should_close() && (!bounded || frame <= options_.frames);) {
        window_.poll_events();
        take_changes();
        const bool measuring = sweep_.running() || lessons_.player().measuring();
        const bool counts = !(bounded && (files_.loading() || measuring));
        if (bounded && !options_.open_file.empty() && !files_.error().empty()) {
            fmt::print(stderr, "pinscope: {}\n", files_.error());  // a capture named at start did not open
            return 2;
        }
        if (style_.apply(wanted_) && frame > 1) window_.reload_font_texture();
        if (frame == 1 && style_.font_fell_back())
            fmt::print(stderr, "pinscope: font: {}\n", style_.font_note());

        const TimeNs wall_start = now_ns(), cpu_start = thread_cpu_ns();
        counted_frame_ = counts ? frame : 0;
        build_frame();  // ends with ImGui::Render()
        if (counts && frame > kWarmUpFrames) {
            cpu_stats_.add(thread_cpu_ns() - cpu_start);
            wall_stats_.add(now_ns() - wall_start);
        }

        window_.draw(palette(style_.theme()).background);
        if (counts && bounded && frame == options_.frames && options_.screenshot &&
            !options_.screenshot->written()) {
            save_png(*options_.screenshot, window_.read_back_buffer());
            fmt::print(stderr, "screenshot: {}\n", options_.screenshot->path().string());
        }
        window_.present();
        if (counts) ++frame;
        report_lesson();
        if (measuring) {
            window_.wait_events(kMeasuringFrameSeconds);
            next_frame = now_ns();
            continue;
        }
        next_frame += kFramePeriod;
        const TimeNs now = now_ns();
        if (next_frame > now)
            std::this_thread::sleep_for(std::chrono::nanoseconds(next_frame - now));
        else
            next_frame = now;  // late: do not try to catch up
    }
    if (options_.frame_stats) report_frame_stats();
    return 0;
}

// Headless runs of a lesson (--lesson with --frames) print its outcome once it is measured, as
// `pinscope lesson` does: what a class saw in the app, for tests and for a teacher preparing a class.
void DesktopApp::report_lesson() {
    if (lesson_reported_ || options_.frames == 0 || options_.lesson.empty()) return;
    const LessonPlayer& player = lessons_.player();
    if (!player.error().empty()) {
        fmt::print("lesson {}: the runs failed: {}\n", player.lesson()->slug, player.error());
        lesson_reported_ = true;
        return;
    }
    const std::optional<LessonOutcome> outcome = player.outcome();
    if (!outcome) return;
    lesson_reported_ = true;
    fmt::print("lesson {} (in the app): {}\n{}\n", player.lesson()->slug,
               outcome->kept() ? "kept" : "NOT kept", outcome->answer);
    for (const CheckResult& check : outcome->checks) fmt::print("  {}\n", check.line);
    std::fflush(stdout);
}

void DesktopApp::report_frame_stats() const {
    auto ms = [](TimeNs ns) { return static_cast<double>(ns) / 1e6; };
    fmt::print(
        "frame build time over {} frames (after {} warm-up): p50 {:.2f} ms, p99 {:.2f} ms, max {:.2f} ms "
        "of CPU time; wall time p50 {:.2f} ms, p99 {:.2f} ms; {} spans in the trace, {} boxes drawn in the "
        "last frame; {}\n",
        cpu_stats_.count(), kWarmUpFrames, ms(cpu_stats_.percentile(50)), ms(cpu_stats_.percentile(99)),
        ms(cpu_stats_.max()), ms(wall_stats_.percentile(50)), ms(wall_stats_.percentile(99)),
        format_count(static_cast<double>(spans_in_last_frame_)),
        format_count(static_cast<double>(timeline_.drawn_items())), span_drawing());
}

void DesktopApp::shortcuts() {
    const ImGuiIO& io = ImGui::GetIO();
    if (io.KeyCtrl) {
        if (ImGui::IsKeyPressed(keys::kEqual) || ImGui::IsKeyPressed(keys::kPadAdd))
            wanted_.font_scale += kFontStep;
        if (ImGui::IsKeyPressed(keys::kMinus) || ImGui::IsKeyPressed(keys::kPadSubtract))
            wanted_.font_scale -= kFontStep;
        if (ImGui::IsKeyPressed(keys::kZero, false)) wanted_.font_scale = 1.f;
        if (ImGui::IsKeyPressed(keys::kR, false) && state_->live()) record_.open();
        if (ImGui::IsKeyPressed(keys::kB, false)) controls_collapsed_ = !controls_collapsed_;
        if (ImGui::IsKeyPressed(keys::kO, false)) files_.choose_file_to_open();
        if (ImGui::IsKeyPressed(keys::kE, false)) files_.open_export(*state_);
        wanted_.font_scale = std::clamp(wanted_.font_scale, UiSettings::kMinScale, UiSettings::kMaxScale);
    }
    if (ImGui::IsKeyPressed(keys::kF5, false)) set_presentation(!presentation_);
    if (presentation_ && ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false))
        set_presentation(false);
    if (show_lessons_) lessons_.keys();
    pipeline_keys();
    timeline_.shortcuts(*state_);
}

void DesktopApp::menu_bar() {
    if (!ImGui::BeginMainMenuBar()) return;
    if (ImGui::BeginMenu("File")) {
        files_.menu_items(*state_, timeline_.viewport().range());
        ImGui::Separator();
        if (ImGui::MenuItem("Record...", "Ctrl+R", false, state_->live())) record_.open();
        if (ImGui::MenuItem("Sweep...")) sweep_.open();
        if (ImGui::MenuItem("Quit")) quit_ = true;
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("View")) {
        if (ImGui::MenuItem("Larger text", "Ctrl +")) wanted_.font_scale += kFontStep;
        if (ImGui::MenuItem("Smaller text", "Ctrl -")) wanted_.font_scale -= kFontStep;
        if (ImGui::MenuItem("Reset text size", "Ctrl 0")) wanted_.font_scale = 1.f;
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10.f);
        ImGui::SliderFloat("text size", &wanted_.font_scale, UiSettings::kMinScale, UiSettings::kMaxScale,
                           "%.2fx");
        ImGui::MenuItem("High contrast", nullptr, &wanted_.high_contrast);
        bool shown = !controls_collapsed_;
        if (ImGui::MenuItem("Controls panel", "Ctrl+B", &shown)) controls_collapsed_ = !shown;
        ImGui::Separator();
        if (ImGui::MenuItem("Follow live", "Space", timeline_.viewport().following()))
            timeline_.viewport().toggle_following();
        if (ImGui::MenuItem("Fit all", "F")) timeline_.fit(state_->store());
        ImGui::Separator();
        if (ImGui::MenuItem("Advisor...")) advisor_.open();
        ImGui::MenuItem("Lessons panel", nullptr, &show_lessons_);
        if (ImGui::MenuItem("Presentation mode", "F5", presentation_)) set_presentation(!presentation_);
        ImGui::EndMenu();
    }
    if (LiveSession* live = state_->session(); live && ImGui::BeginMenu("Pipeline")) {
        if (ImGui::MenuItem("Pause", "P", live->paused())) live->set_paused(!live->paused());
        if (ImGui::MenuItem("Step one batch", "N", false, live->paused())) live->step();
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("Help")) {
        ImGui::MenuItem("Shortcuts", nullptr, &show_help_);
        ImGui::EndMenu();
    }
    timeline_.toolbar(*state_, style_.theme());
    ImGui::EndMainMenuBar();
}

void DesktopApp::shortcuts_window() {
    const ImGuiIO& io = ImGui::GetIO();
    ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x * 0.5f, io.DisplaySize.y * 0.3f), ImGuiCond_Appearing,
                            ImVec2(0.5f, 0));
    if (ImGui::Begin("Shortcuts", &show_help_,
                     ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoCollapse)) {
        ImGui::TextUnformatted(
            "Space          follow live / freeze the view (the pipeline runs on)\n"
            "F              fit the whole trace\n"
            "Wheel          zoom about the cursor (Shift+wheel scrolls the lanes)\n"
            "Drag           pan\n"
            "Right-drag     select a range (or Shift+drag)\n"
            "Z              zoom to the selection\n"
            "Esc            clear the selection\n"
            "Ctrl + / -     larger / smaller text (Ctrl 0 resets)\n"
            "Ctrl R         record a trace or a capture\n"
            "Ctrl O         open a capture (or drop the file on the window)\n"
            "Ctrl E         export the view (PNG, SVG, Perfetto, CSV)\n"
            "Ctrl B         hide or show the Controls\n"
            "P              pause the pipeline (N: one more batch while paused)\n"
            "F5             presentation mode (Esc leaves; arrows turn a lesson's pages, 1-9 answer)\n"
            "Ctrl+click     type a slider's value");
    }
    ImGui::End();
}

// Headless frames (--frames) have no pointer unless --mouse puts one somewhere: a screenshot then shows
// no tooltip of whatever the middle of the window happens to hold.
std::optional<ImVec2> DesktopApp::pointer() const {
    if (options_.mouse) return ImVec2(options_.mouse->x, options_.mouse->y);
    if (options_.frames > 0) return ImVec2(-FLT_MAX, -FLT_MAX);
    return std::nullopt;
}

void DesktopApp::build_frame() {
    window_.new_frame(pointer(), options_.click_frame > 0 && counted_frame_ == options_.click_frame);
    if (span_renderer_) span_renderer_->begin_frame();
    state_->tick(now_ns(), timeline_.viewport().range().start);
    settle_zoom();
    if (options_.select_last > 0) {  // for screenshots of a selection
        timeline_.viewport().update(state_->live_edge());
        const TimeNs end = timeline_.viewport().range().end;
        timeline_.viewport().select(end - static_cast<TimeNs>(options_.select_last * 1e9), end);
    }
    shortcuts();
    menu_bar();

    const ImGuiIO& io = ImGui::GetIO();
    const Theme theme = style_.theme();
    const StatusExtras extras{style_.font_note(), style_.font_fell_back(), io.Framerate, span_drawing()};
    const Layout layout = lay_out(measure_layout(io.DisplaySize, status_bar_lines(*state_, extras),
                                                 controls_collapsed_, timeline_.legend()));
    if (show_lessons_ && !controls_collapsed_)
        lessons_.draw(*state_, theme, layout.controls, presentation_);
    else if (state_->comparison() && !controls_collapsed_)
        draw_compare_panel(*state_, theme, layout.controls);
    else
        controls_.draw(*state_, theme, layout.controls, controls_collapsed_);
    if (const Preset* chosen = controls_.take_chosen_preset()) show_at_its_zoom(*chosen);
    if (const double seconds = lessons_.take_view_seconds(); seconds > 0) {
        timeline_.viewport().set_length(static_cast<TimeNs>(seconds * 1e9));
        zoom_settled_ = true;
    }
    draw_metrics_window(*state_, theme, layout);
    timeline_.draw(*state_, theme, layout.timeline, layout.padding);
    draw_status_bar(*state_, extras, theme, layout.status, layout.padding);
    record_.draw(*state_, theme);
    sweep_.draw(*state_, theme);
    advisor_.draw(*state_, theme, timeline_.viewport());
    if (show_help_) shortcuts_window();
    ImGui::Render();
    spans_in_last_frame_ = state_->store().span_count();
    state_->end_frame();  // the draw data holds what it needs of the trace: the collector may write
}

}  // namespace pinscope::gui
