#include "app/gui/gui_command.h"

#include "core/io/kineto/profiler_trace_import.h"

#include <cstdlib>
#include <memory>

#include <fmt/format.h>

#include "app/cli/config_options.h"
#include "app/cli/output_option.h"
#include "app/cli/run_command.h"
#include "app/cli/usage_error.h"
#include "app/gui/app_window.h"
#include "app/gui/desktop_app.h"
#include "app/gui/model/synthetic_trace.h"
#include "core/config/knobs.h"
#include "core/device/calibration.h"
#include "core/io/capture.h"
#include "core/lab/lesson.h"

namespace pinscope::gui {
namespace {

constexpr const char* kDemoLine = "running the headless demo (pinscope run with its defaults).";

void parse_size(const std::string& text, GuiOptions& options) {
    int w = 0, h = 0;
    char x = 0, extra = 0;
    if (std::sscanf(text.c_str(), "%d%c%d%c", &w, &x, &h, &extra) != 3 || (x != 'x' && x != 'X') || w < 320 ||
        h < 240 || w > 7680 || h > 4320)
        throw UsageError(fmt::format(
            "--size {}: expected WIDTHxHEIGHT between 320x240 and 7680x4320, e.g. --size 1600x900.", text));
    options.width = w;
    options.height = h;
}

std::unique_ptr<AppState> make_state(const PipelineConfig& config, const GuiOptions& options) {
    if (!options.open_file.empty()) return std::make_unique<AppState>(TraceStore{});  // until it has loaded
    if (options.synthetic_spans > 0) {
        SyntheticTraceShape shape;
        shape.spans = options.synthetic_spans;
        return std::make_unique<AppState>(make_synthetic_trace(shape));
    }
    return opening_device([&] { return std::make_unique<AppState>(config); });
}

}  // namespace

void check_capture_file(const std::filesystem::path& file, const char* option) {
    if (file.empty()) return;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec))
        throw UsageError(fmt::format("{} {}: no such file.", option, file.string()));
    if (!looks_like_capture(file) && !looks_like_profiler_trace(file))
        throw UsageError(
            fmt::format("{} {}: not a pinscope capture (it does not start with \"PINSCOPE\"), nor a PyTorch "
                        "profiler trace (JSON or gzip); record one with `pinscope run --capture FILE`.",
                        option, file.string()));
}

int open_in_app(const std::filesystem::path& file) {
    check_capture_file(file, "open");
    GuiOptions options;
    options.open_file = file;
    return run_gui(PipelineConfig{}, options);
}

std::string missing_display() {
    auto set = [](const char* name) {
        const char* value = std::getenv(name);
        return value && *value;
    };
    if (set("DISPLAY") || set("WAYLAND_DISPLAY")) return {};
    return "no display (DISPLAY and WAYLAND_DISPLAY are unset)";
}

int run_gui(const PipelineConfig& config, const GuiOptions& options) {
    WindowOptions window_options;
    window_options.width = options.width;
    window_options.height = options.height;
    window_options.resizable = options.frames == 0;
    window_options.title = options.synthetic_spans ? "pinscope (synthetic trace)" : "pinscope";
    if (!options.open_file.empty())
        window_options.title = "pinscope: " + options.open_file.filename().string();
    AppWindow window(window_options);  // before the pipeline: no window, no threads started for nothing
    DesktopApp app(make_state(config, options), window, options, config);
    return app.run();
}

int run_default_app() {
    if (std::string why = missing_display(); !why.empty()) {
        fmt::print(stderr, "pinscope: {}; {}\n", why, kDemoLine);
        return run_headless(PipelineConfig{}, HeadlessOutput{});
    }
    try {
        return run_gui(PipelineConfig{}, GuiOptions{});
    } catch (const WindowError& e) {
        fmt::print(stderr, "pinscope: {}; {}\n", e.what(), kDemoLine);
        return run_headless(PipelineConfig{}, HeadlessOutput{});
    }
}

namespace {

// Options of the window itself: size, frames, text, theme, frame statistics.
void add_window_options(CLI::App& cmd, GuiOptions& options, std::string& size, OutputOption& screenshot) {
    auto* group = "Window";
    cmd.add_option("--frames", options.frames,
                   "Render this many frames, then exit (0: until the window is closed)")
        ->check(CLI::NonNegativeNumber)
        ->group(group);
    add_output_option(cmd, "--screenshot", screenshot, "After the last frame, save the window as a PNG")
        ->group(group);
    cmd.add_option("--size", size, "Window size")->option_text("WxH")->default_str("1600x900")->group(group);
    cmd.add_flag("--frame-stats", options.frame_stats,
                 "Print the frame build time (p50/p99) at exit: CPU time to build a frame, timeline included")
        ->group(group);
    cmd.add_option("--view-seconds", options.view_seconds,
                   "How much time the timeline shows at first (default: a preset's zoom, else about a dozen "
                   "batches)")
        ->check(CLI::Range(1e-5, 3600.0))
        ->default_str("")
        ->group(group);
    cmd.add_flag("--collapse-controls", options.controls_collapsed,
                 "Start with the Controls folded to a strip")
        ->group(group);
    cmd.add_option("--open", options.open_file,
                   "Open a capture (.pinscope) or a PyTorch profiler trace (.json, .json.gz) instead of "
                   "running a pipeline")
        ->option_text("FILE")
        ->group(group);
    cmd.add_option("--range", options.open_range,
                   "With --open: read only this part of the capture, in seconds from its start (FROM:TO); a "
                   "capture too big for a quarter of the memory opens its first part that fits without it")
        ->option_text("FROM:TO")
        ->needs("--open")
        ->check([](const std::string& text) {
            try {
                parse_capture_range(text);
                return std::string();
            } catch (const std::invalid_argument& e) {
                return std::string(e.what());
            }
        })
        ->group(group);
    cmd.add_option("--compare", options.compare_file, "With --open: stack this capture under it to compare")
        ->option_text("FILE")
        ->needs("--open")
        ->group(group);
    cmd.add_option_function<std::string>(
           "--renderer",
           [&options](const std::string& r) {
               using R = GuiOptions::SpanRendering;
               options.span_rendering = r == "gpu" ? R::gpu : r == "drawlist" ? R::draw_lists : R::automatic;
           },
           "How a capture's spans are drawn: gpu (GLSL instancing, OpenGL 3.3), drawlist (ImGui's draw "
           "lists, as live runs are) or auto (gpu unless OpenGL is a software rasterizer)")
        ->check(CLI::IsMember({"auto", "gpu", "drawlist"}))
        ->default_str("auto")
        ->group(group);
    cmd.add_option("--synthetic-spans", options.synthetic_spans,
                   "View a synthetic trace of this many spans instead of running a pipeline (for measuring)")
        ->group(group);
    cmd.add_option("--font-scale", options.ui.font_scale, "Text size (Ctrl +/- in the app)")
        ->check(CLI::Range(UiSettings::kMinScale, UiSettings::kMaxScale))
        ->default_str("1")
        ->group(group);
    cmd.add_flag("--high-contrast", options.ui.high_contrast, "High-contrast theme, for projectors")
        ->group(group);
    cmd.add_option("--lesson", options.lesson,
                   "Open the Lessons panel on this lesson (`pinscope lesson` lists them)")
        ->option_text("NAME")
        ->check([](const std::string& name) {
            return find_lesson(name) ? std::string()
                                     : fmt::format("no such lesson; the lessons are: {}", lesson_slugs());
        })
        ->group(group);
    cmd.add_flag("--presentation", options.presentation,
                 "Presentation mode: full screen, large type, the lesson beside the timeline (F5 toggles)")
        ->group(group);
    cmd.add_option("--font", options.ui.font_file,
                   "TrueType font (falls back to ImGui's built-in font when missing)")
        ->option_text("FILE")
        ->default_str(kDefaultFontFile)
        ->group(group);
}

// Hidden options for screenshots that show a hover, a selection or an open window.
void add_screenshot_options(CLI::App& cmd, GuiOptions& options, std::string& mouse) {
    cmd.add_option("--mouse", mouse, "Fix the pointer at X,Y (screenshots of hovers)")->group("");
    cmd.add_option("--show-window", options.open_window, "Open a window from the start (screenshots)")
        ->check(CLI::IsMember({"record", "save", "shortcuts", "sweep", "advisor"}))
        ->group("");
    cmd.add_option(
           "--run-sweep", options.run_sweep,
           "Run the Sweep window's grid at once, SECONDS per config; frames wait for it (screenshots)")
        ->check(CLI::Range(0.05, 60.0))
        ->group("");
    cmd.add_option("--lesson-page", options.lesson_page, "Show this page of the --lesson (screenshots)")
        ->check(CLI::Range(0, 100))
        ->group("");
    cmd.add_option("--select-last", options.select_last, "Select the last SECONDS of the view (screenshots)")
        ->group("");
    cmd.add_option("--click-at-frame", options.click_frame,
                   "Press the left button at --mouse on this frame of --frames (screenshots of a click)")
        ->check(CLI::Range(1, 1'000'000))
        ->needs("--mouse")
        ->group("");
    cmd.add_option("--preview-edit", options.preview_edits,
                   "Turn the Controls' preview on with this edit held in it, KNOB=VALUE (screenshots)")
        ->check([](const std::string& edit) -> std::string {
            const size_t eq = edit.find('=');
            const Knob* knob = eq == std::string::npos ? nullptr : find_knob(edit.substr(0, eq));
            if (!knob) return "expected KNOB=VALUE with a knob's config key, e.g. num_workers=4";
            try {
                knob->parse(edit.substr(eq + 1));
            } catch (const KnobValueError& e) {
                return fmt::format("{} {}", knob->key, e.what());
            }
            return {};
        })
        ->group("");
}

void parse_mouse(const std::string& text, GuiOptions& options) {
    if (text.empty()) return;
    GuiOptions::Point p;
    if (std::sscanf(text.c_str(), "%f,%f", &p.x, &p.y) != 2)
        throw UsageError(fmt::format("--mouse {}: expected X,Y in pixels, e.g. --mouse 800,300.", text));
    options.mouse = p;
}

}  // namespace

Command add_gui_command(CLI::App& app) {
    CLI::App* cmd =
        app.add_subcommand("gui", "Open the desktop app: a live pipeline, its timeline and its controls");
    auto config_options = std::make_shared<ConfigOptions>(*cmd, PipelineConfig{});
    auto options = std::make_shared<GuiOptions>();
    auto size = std::make_shared<std::string>("1600x900");
    auto mouse = std::make_shared<std::string>();
    auto screenshot = std::make_shared<OutputOption>();
    add_window_options(*cmd, *options, *size, *screenshot);
    add_screenshot_options(*cmd, *options, *mouse);
    return {cmd, [config_options, options, size, mouse, screenshot] {
                parse_size(*size, *options);
                parse_mouse(*mouse, *options);
                const PipelineConfig config = config_options->resolve();
                options->preset = config_options->preset();
                check_capture_file(options->open_file, "--open");
                check_capture_file(options->compare_file, "--compare");
                OutputPlan plan;
                config_options->add_inputs(plan, config);
                plan.add_input(options->open_file, "the --open capture");
                plan.add_input(options->compare_file, "the --compare capture");
                plan.add_input(options->ui.font_file, "the --font file");
                if (screenshot->given()) {
                    options->screenshot =
                        std::make_shared<OutputFile>(screenshot->ready(plan, "the screenshot"));
                    if (options->frames == 0) options->frames = 120;  // a screenshot needs a last frame
                }
                if (std::string why = missing_display(); !why.empty())
                    throw std::runtime_error(
                        why + "; run it on a desktop or under xvfb-run, or use `pinscope run`");
                return run_gui(config, *options);
            }};
}

}  // namespace pinscope::gui
