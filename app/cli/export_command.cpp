#include "app/cli/export_command.h"

#include <cmath>
#include <memory>
#include <sstream>

#include <fmt/format.h>

#include "app/cli/capture_input.h"
#include "app/cli/output_option.h"
#include "app/cli/usage_error.h"
#include "core/io/capture_export.h"
#include "core/io/chrome_trace.h"
#include "core/picture/timeline_picture.h"

namespace pinscope {
namespace {

struct ExportRequest {
    std::string file, format;
    OutputOption output;
    std::string window;  // "FROM:TO" in seconds from the capture's start; empty: all of it
    std::string size = "1600x900";
    bool dark = false;
};

// "0.5:0.52" -> the interval of the capture from 0.5 s to 0.52 s after its first span. A window that
// misses the capture would export nothing: that is bad input too, said with the capture's length.
Interval parse_window(const std::string& text, const TraceStore& store) {
    if (text.empty()) return {0, 0};
    double from = 0, to = 0;
    char colon = 0;
    std::istringstream in(text);
    if (!(in >> from >> colon >> to) || colon != ':' || !in.eof() || !std::isfinite(from) ||
        !std::isfinite(to) || from < 0 || to <= from)
        throw UsageError(
            fmt::format("--window {}: give FROM:TO in seconds from the capture's start, such as "
                        "0.5:0.52.",
                        text));
    const double length = ns_to_s(store.last_time() - store.first_time());
    if (from >= length)
        throw UsageError(
            fmt::format("--window {}: the capture is {:.3f} s long, so the window starts after its "
                        "end; give FROM below {:.3f}.",
                        text, length, length));
    const TimeNs first = store.first_time();
    return {first + static_cast<TimeNs>(from * 1e9), first + static_cast<TimeNs>(std::min(to, length) * 1e9)};
}

std::pair<int, int> parse_size(const std::string& text) {
    int w = 0, h = 0;
    char x = 0;
    std::istringstream in(text);
    if (!(in >> w >> x >> h) || x != 'x' || !in.eof() || w < 200 || h < 100 || w > 16384 || h > 16384)
        throw UsageError(
            fmt::format("--size {}: give WIDTHxHEIGHT in pixels, from 200x100 to 16384x16384, such as "
                        "1920x1080.",
                        text));
    return {w, h};
}

int run_export(const ExportRequest& r) {
    OutputPlan plan;
    plan.add_input(r.file, "the capture it exports");
    if (r.format == "png" || r.format == "svg") {
        const std::filesystem::path output = r.output.path;
        std::error_code none;
        const bool stream =
            std::filesystem::is_character_file(output, none) || std::filesystem::is_fifo(output, none);
        if (!stream && output.extension() != "." + r.format)
            throw UsageError(fmt::format("--output {}: a {} export needs a file name ending in .{}.",
                                         r.output.path, r.format, r.format));
    }
    PictureOptions options;
    std::tie(options.width, options.height) = parse_size(r.size);
    OutputFile output = r.output.ready(plan, r.format == "csv" ? "the batch table" : "the export");
    OutputFile metrics;
    if (r.format == "csv")
        metrics = plan.add_output(metrics_csv_path(r.output.path), "--output's metrics file", "the metrics",
                                  OutputFormat::other);

    const Capture capture = open_capture_for_cli(r.file);
    const Interval window = parse_window(r.window, capture.store);
    if (r.format == "perfetto") {
        save_chrome_trace(output, capture.store, capture_export_info(capture, window));
        fmt::print(stderr, "wrote {} (Chrome trace JSON: open it in ui.perfetto.dev)\n",
                   output.path().string());
    } else if (r.format == "csv") {
        save_capture_csv(output, metrics, capture, window);
        fmt::print(stderr, "wrote {} (every batch's stage latencies) and {} (the metrics)\n",
                   output.path().string(), metrics.path().string());
    } else {
        options.view = window;
        options.title = capture_title(capture);
        options.dark = r.dark;
        std::string warning;
        save_timeline_picture(output, r.format == "svg" ? PictureFormat::svg : PictureFormat::png,
                              capture.store, options, &warning);
        if (!warning.empty()) fmt::print(stderr, "warning: {}\n", warning);
        fmt::print(stderr, "wrote {} ({}x{})\n", output.path().string(), options.width, options.height);
    }
    return kExitOk;
}

}  // namespace

Command add_export_command(CLI::App& app) {
    CLI::App* cmd = app.add_subcommand("export", "Export a capture as a Perfetto trace, CSV, PNG or SVG");
    auto r = std::make_shared<ExportRequest>();
    cmd->add_option("file", r->file, "The capture (.pinscope)")->required()->option_text("FILE");
    cmd->add_option("--to", r->format, "What to write")
        ->required()
        ->check(CLI::IsMember({"perfetto", "csv", "png", "svg"}))
        ->option_text("perfetto|csv|png|svg");
    add_output_option(*cmd, "--output", r->output,
                      "The file to write (csv: also OUT's .metrics.csv beside it)")
        ->required()
        ->option_text("OUT");
    cmd->add_option("--window", r->window, "Only this stretch, in seconds from the capture's start")
        ->option_text("FROM:TO");
    cmd->add_option("--size", r->size, "png, svg: the picture's size in pixels")->option_text("WxH");
    cmd->add_flag("--dark", r->dark, "png, svg: the app's dark colours instead of light ones");
    return {cmd, [r] { return run_export(*r); }};
}

}  // namespace pinscope
