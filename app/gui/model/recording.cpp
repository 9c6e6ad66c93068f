#include "app/gui/model/recording.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "core/analysis/metrics.h"
#include "core/config/config_json.h"
#include "core/io/chrome_trace.h"
#include "core/io/metrics_json.h"
#include "core/io/output_plan.h"

namespace pinscope::gui {

Recording::Recording(RecordRequest request, RecordContext context, TimeNs now, TimeNs latest)
    : request_(std::move(request)), context_(std::move(context)) {
    if (request_.file.empty()) throw std::invalid_argument("choose a file to record to");
    if (!std::isfinite(request_.seconds) || request_.seconds <= 0 || request_.seconds > kMaxSeconds)
        throw std::invalid_argument(
            fmt::format("seconds should be between 0 and {}; record a shorter stretch", kMaxSeconds));
    const OutputFormat format = named_as_capture(request_.file) ? OutputFormat::capture : OutputFormat::other;
    OutputPlan plan;
    output_ = std::make_shared<OutputFile>(plan.add_output(
        request_.file, "", format == OutputFormat::capture ? "the capture" : "the trace", format));
    const TimeNs length = static_cast<TimeNs>(request_.seconds * 1e9);
    window_ =
        request_.mode == RecordMode::last ? Interval{latest - length, latest} : Interval{now, now + length};
    message_ = request_.mode == RecordMode::last ? "writing" : "capturing";
}

Recording::~Recording() {
    if (writer_.valid()) writer_.wait();
}

double Recording::progress(TimeNs now) const {
    if (phase_ != RecordPhase::capturing) return 1;
    return std::clamp(static_cast<double>(now - window_.start) / static_cast<double>(window_.length()), 0.0,
                      1.0);
}

void Recording::update(const TraceStore& store, TimeNs now) {
    if (phase_ == RecordPhase::capturing) {
        if (request_.mode == RecordMode::next && now < window_.end + kSettle) return;
        auto window = std::make_shared<TraceStore>(store.extract(window_));
        spans_written_ = window->span_count();
        CaptureInfo info = context_.info;
        info.window = {window_.start, window_.end};
        const Metrics metrics =
            compute_metrics(*window, capture_batch_size(info), info.window, capture_slow_motion(info));
        info.metrics = metrics_json(metrics);
        phase_ = RecordPhase::writing;
        message_ = fmt::format("writing {} spans", spans_written_);
        writer_ = std::async(std::launch::async, [window, info, output = output_]() -> std::string {
            try {
                if (named_as_capture(output->path())) {
                    save_capture(*output, *window, info);
                } else {
                    const ExportInfo chrome{
                        info.device.name,
                        "pinscope",
                        info.config ? config_to_json(*info.config) : nlohmann::json(nullptr),
                        info.metrics,
                        info.window.start,
                        info.window.end};
                    save_chrome_trace(*output, *window, chrome);
                }
                return {};
            } catch (const std::exception& e) {
                return e.what();
            }
        });
        return;
    }
    if (phase_ != RecordPhase::writing) return;
    if (writer_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return;
    const std::string error = writer_.get();
    phase_ = error.empty() ? RecordPhase::done : RecordPhase::failed;
    message_ =
        error.empty() ? fmt::format("wrote {} spans to {}", spans_written_, request_.file.string()) : error;
}

}  // namespace pinscope::gui
