#pragma once
// File > Export view: what the timeline shows now, as a picture for slides (PNG, SVG at a chosen
// size), a Chrome/Perfetto trace, or CSV (every batch's stage latencies, and the metrics). The view's
// stretch is copied out of the store on the GUI thread (TraceStore::extract: only that stretch) and
// written on a background thread, so the app keeps drawing; every file is written whole or not at all.
#include <filesystem>
#include <future>
#include <string>

#include "core/io/capture.h"
#include "core/trace/interval.h"

namespace pinscope::gui {

enum class ExportFormat { png, svg, perfetto, csv };

struct ExportRequest {
    ExportFormat format = ExportFormat::png;
    std::filesystem::path file;
    int width = 1920, height = 1080;  // png, svg
    bool dark = false;                // png, svg: the app's colours rather than print-friendly ones
};

// ".png", ".svg", ".json", ".csv"
const char* export_extension(ExportFormat format);

class ViewExport {
  public:
    // Throws std::invalid_argument for a bad request (no file, a size out of range, a wrong extension),
    // OutputPathError for a file that cannot be written or that is a capture the export would replace.
    ViewExport(const ExportRequest& request, const TraceStore& store, Interval view, CaptureInfo info);
    ~ViewExport();  // waits for the write
    ViewExport(const ViewExport&) = delete;
    ViewExport& operator=(const ViewExport&) = delete;

    bool done() const;
    bool failed() const { return failed_; }
    // Once done(): "wrote slides.png (1920x1080)", or what went wrong.
    const std::string& message();

  private:
    std::future<std::string> work_;  // the message
    std::string message_;
    bool failed_ = false;
};

}  // namespace pinscope::gui
