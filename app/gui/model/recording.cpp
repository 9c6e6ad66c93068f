#include "app/gui/model/recording.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "core/analysis/metrics.h"
#include "core/io/chrome_trace.h"
#include "core/io/metrics_json.h"

namespace pinscope::gui {

Recording::Recording(RecordRequest request, RecordContext context, TimeNs now, TimeNs latest)
    : request_(std::move(request)), context_(std::move(context)) {
    if (request_.file.empty()) throw std::invalid_argument("choose a file to record to");
    if (!std::isfinite(request_.seconds) || request_.seconds <= 0 || request_.seconds > kMaxSeconds)
        throw std::invalid_argument(
            fmt::format("seconds should be between 0 and {}; record a shorter stretch", kMaxSeconds));
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
        ExportInfo info;
        info.device_name = context_.device_name;
        info.config = context_.config;
        info.metrics =
            metrics_json(compute_metrics(*window, context_.batch_size, {window_.start, window_.end}));
        info.start = window_.start;
        info.end = window_.end;
        phase_ = RecordPhase::writing;
        message_ = fmt::format("writing {} spans", spans_written_);
        writer_ = std::async(std::launch::async, [window, info, file = request_.file]() -> std::string {
            try {
                save_chrome_trace(file, *window, info);
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
