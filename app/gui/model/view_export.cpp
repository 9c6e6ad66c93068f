#include "app/gui/model/view_export.h"

#include <chrono>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>

#include "core/io/capture_export.h"
#include "core/io/chrome_trace.h"
#include "core/io/output_plan.h"
#include "core/picture/timeline_picture.h"

namespace pinscope::gui {

const char* export_extension(ExportFormat format) {
    switch (format) {
        case ExportFormat::png:
            return ".png";
        case ExportFormat::svg:
            return ".svg";
        case ExportFormat::perfetto:
            return ".json";
        case ExportFormat::csv:
            return ".csv";
    }
    return "";
}

namespace {

// The files an export writes, readied before any work: the batch table of a CSV export has its metrics
// file beside it.
struct ExportFiles {
    OutputFile main, metrics;
};

std::string write_export(const ExportRequest& r, ExportFiles& files, const Capture& view, Interval range) {
    switch (r.format) {
        case ExportFormat::png:
        case ExportFormat::svg: {
            PictureOptions options;
            options.width = r.width;
            options.height = r.height;
            options.view = range;
            options.title = capture_title(view);
            options.dark = r.dark;
            std::string warning;
            save_timeline_picture(files.main,
                                  r.format == ExportFormat::svg ? PictureFormat::svg : PictureFormat::png,
                                  view.store, options, &warning);
            return fmt::format("wrote {} ({}x{}){}", r.file.string(), r.width, r.height,
                               warning.empty() ? "" : "; " + warning);
        }
        case ExportFormat::perfetto: {
            save_chrome_trace(files.main, view.store, capture_export_info(view, range));
            return fmt::format("wrote {} (open it in ui.perfetto.dev)", r.file.string());
        }
        case ExportFormat::csv: {
            save_capture_csv(files.main, files.metrics, view, range);
            return fmt::format("wrote {} and {}", r.file.string(), files.metrics.path().filename().string());
        }
    }
    return {};
}

}  // namespace

ViewExport::ViewExport(const ExportRequest& request, const TraceStore& store, Interval view,
                       CaptureInfo info) {
    if (request.file.empty()) throw std::invalid_argument("choose a file to export to");
    if (request.file.extension() != export_extension(request.format))
        throw std::invalid_argument(
            fmt::format("the file name should end in {}", export_extension(request.format)));
    if (request.width < 200 || request.height < 100 || request.width > 16384 || request.height > 16384)
        throw std::invalid_argument("the size should be between 200x100 and 16384x16384 pixels");
    OutputPlan plan;
    auto files = std::make_shared<ExportFiles>();
    files->main = plan.add_output(request.file, "", "the export", OutputFormat::other);
    if (request.format == ExportFormat::csv)
        files->metrics =
            plan.add_output(metrics_csv_path(request.file), "", "the metrics", OutputFormat::other);
    auto copy = std::make_shared<Capture>();
    copy->info = std::move(info);
    copy->info.window = {view.start, view.end};
    copy->store = store.extract(view);
    work_ = std::async(std::launch::async, [copy, files, request, view]() -> std::string {
        return write_export(request, *files, *copy, view);
    });
}

ViewExport::~ViewExport() {
    if (work_.valid()) work_.wait();
}

bool ViewExport::done() const {
    return !work_.valid() || work_.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

const std::string& ViewExport::message() {
    if (work_.valid() && done()) {
        try {
            message_ = work_.get();
        } catch (const std::exception& e) {
            message_ = e.what();
            failed_ = true;
        }
    }
    return message_;
}

}  // namespace pinscope::gui
